"""Running untrusted agent code (docs/sandbox.md).

Public API (the platform codes against exactly this)::

    from sandbox import SandboxLimits, create_handle, detect_backend, remove_orphans, SANDBOX_IMAGE
    from sandbox import start_warm_pool, drain_warm_pool, discard_reused, drain_reused

Everything that makes, finds or removes docker sandboxes takes ``instance``: the identity of the
platform instance asking (``sandbox/instance.py``). Its containers carry it in a label and their
names; nothing here lists, sweeps or drains another instance's. The platform passes its
``ARENA_INSTANCE_ID``; without one, a process has an instance of its own (``PROCESS_INSTANCE``).

* ``create_handle(source, name=..., backend="docker" | "process", limits=..., instance=...)``
  returns a
  ``games.core.AgentHandle`` that runs ``source`` through ``sandbox/harness.py`` (docker: in a
  container from this process's warm pool when it has one ready, else a new one; with a
  ``reuse_key``, an idle container that served that submission's last match, ``sandbox/reuse.py``);
* ``create_handle(..., gateway=ModelGateway(backend, allowance=ModelAllowance(...)))`` gives the
  agent an OpenAI-compatible endpoint inside its sandbox, answered by the host's model backend
  (``sandbox/gateway.py``; docs/sandbox.md, "The model gateway");
* ``trusted_handle(factory, name=...)`` runs a trusted agent (a house bot) in this process,
  beside sandboxed ones: before each of its calls it waits until every sandboxed agent this
  thread froze is confirmed frozen, as a sandboxed agent's thaw does;
* ``detect_backend()`` says which backend this machine can use;
* ``remove_orphans(instance=...)`` removes the instance's sandbox containers a dead worker left
  behind; ``remove_process_containers(instance=..., pids=...)`` every one that the given
  processes made (a supervisor that stopped them); ``match_containers(instance=...)`` /
  ``remove_containers(ids)`` find and remove the ones of a match that is over (the platform
  knows which matches are);
* ``start_warm_pool(limits, size, instance=...)`` / ``drain_warm_pool()``: this process's warm
  pool of docker sandboxes (``sandbox/pool.py``);
* ``configure_reuse(...)`` / ``discard_reused(key)`` / ``drain_reused()``: this process's idle
  containers kept for their submission's next match (``sandbox/reuse.py``);
* ``containers_by_instance()`` / ``remove_unlabelled_containers()``: for an operator's explicit
  clean-up (containers of every instance; those made before instances existed).

The ``docker`` backend is the sandbox; the ``process`` backend is a convenience for machines
without Docker and isolates nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from games.core.agent import AgentHandle, CallResult, InProcessAgentHandle
from sandbox.gateway import ModelAllowance, ModelGateway
from sandbox.instance import CLI_INSTANCE, PROCESS_INSTANCE
from sandbox.limits import SANDBOX_IMAGE, SandboxLimits

#: The backends ``create_handle`` knows.
BACKENDS = ("docker", "process")


def create_handle(
    source: str,
    *,
    name: str,
    backend: str = "docker",
    limits: SandboxLimits | None = None,
    match: str | None = None,
    instance: str = PROCESS_INSTANCE,
    reuse_key: str | None = None,
    gateway: ModelGateway | None = None,
) -> AgentHandle:
    """A handle that runs the agent ``source`` in ``backend``; ``start()`` sends it the source.

    Nothing runs until the referee calls ``start(game_id=..., timeout_s=...)``. ``match`` names
    the match it plays: a docker container is then named after it (``match_containers``).
    ``instance`` is the platform instance the docker container belongs to. ``reuse_key`` (one
    per submission, never shared by two) lets a supervised docker container serve this
    submission's later matches in this process once this one ends cleanly; ``None``: one match.
    ``gateway`` gives the agent an OpenAI-compatible endpoint in its sandbox, answered by the
    host's backend (``sandbox/gateway.py``).
    """
    if backend == "docker":
        from sandbox import pool, reuse
        from sandbox.docker_handle import DockerAgentHandle

        limits = limits or SandboxLimits()
        if not limits.supervised:
            reuse_key = None
        handle = (
            (
                None
                if reuse_key is None
                else reuse.take(reuse_key, source, name=name, limits=limits, instance=instance)
            )
            or pool.take(source, name=name, limits=limits, instance=instance)
            or DockerAgentHandle(source, name=name, limits=limits, instance=instance)
        )
        handle.match = match
        handle.reuse_key = reuse_key
        handle.reuse_home = None if reuse_key is None else reuse.current()
        handle.gateway = gateway
        return handle
    if backend == "process":
        from sandbox.process_backend import ProcessAgentHandle

        process_handle = ProcessAgentHandle(source, name=name, limits=limits)
        process_handle.gateway = gateway
        return process_handle
    raise ValueError(f"unknown sandbox backend {backend!r}; use one of {', '.join(BACKENDS)}")


class _TrustedHandle(InProcessAgentHandle):
    """An in-process agent that never computes while a frozen opponent might still run."""

    def call(self, method: str, payload: Mapping[str, Any], timeout_s: float) -> CallResult:
        """Confirm this thread's pending freezes, then call the agent in this process."""
        from sandbox.docker_handle import confirm_freezes

        confirm_freezes()
        return super().call(method, payload, timeout_s)


def trusted_handle(factory: Callable[[], Any], *, name: str) -> AgentHandle:
    """A handle for a trusted agent (a house bot) playing in this process against sandboxed
    ones: it runs only once the kernel confirmed every opponent frozen, so a sandboxed agent
    gets no CPU during a house bot's turn either. The seat is the platform's (``platform_seat``):
    a house bot that overruns its budget is a platform error, never the opponent's win."""
    return _TrustedHandle(factory=factory, display_name=name, platform_seat=True)


def detect_backend(limits: SandboxLimits | None = None) -> str:
    """``"docker"`` when an engine answers and the sandbox image exists, else ``"process"``."""
    from sandbox.engine import docker_ready

    return "docker" if docker_ready((limits or SandboxLimits()).image) else "process"


def match_containers(*, instance: str = PROCESS_INSTANCE) -> dict[str, str]:
    """The docker sandboxes of ``instance`` bound to a match (``create_handle(match=...)``) on
    this machine's engine, {container id: match}; empty when no engine answers."""
    from sandbox.reaper import match_containers

    return match_containers(instance=instance)


def remove_containers(container_ids: list[str]) -> int:
    """Remove these docker sandboxes now (the platform's reaper, for matches that are over)."""
    from sandbox.reaper import remove_containers

    return remove_containers(container_ids)


def remove_orphans(*, instance: str = PROCESS_INSTANCE) -> int:
    """Remove the sandbox containers of ``instance`` (selected by label) a dead worker left;
    return how many. Other instances' containers are never touched.

    Returns 0 when no engine answers: there is then nothing to clean.
    """
    from sandbox.reaper import remove_orphan_containers

    return remove_orphan_containers(instance=instance)


def remove_process_containers(*, instance: str, pids: set[int] | frozenset[int]) -> int:
    """Remove every sandbox container of ``instance`` created by one of the processes ``pids``
    of this host, whatever its state; return how many (0 when no engine answers). For a
    supervisor that has just stopped those processes: a warm pool's idle containers and a cut
    match's go with them."""
    from sandbox.reaper import remove_process_containers

    return remove_process_containers(instance=instance, pids=pids)


def containers_by_instance() -> dict[str, list[str]]:
    """Every docker sandbox on this engine by instance (``""``: made before instances existed)."""
    from sandbox.reaper import containers_by_instance

    return containers_by_instance()


def remove_unlabelled_containers() -> int:
    """Remove the docker sandboxes made before instances existed (an operator's decision)."""
    from sandbox.reaper import remove_unlabelled_containers

    return remove_unlabelled_containers()


def start_warm_pool(
    limits: SandboxLimits | None = None, size: int = 2, *, instance: str = PROCESS_INSTANCE
) -> None:
    """Keep ``size`` docker sandboxes of ``instance`` with these limits started ahead of demand,
    refilled in the background (replaces a running pool; 0 stops it). Idle ones are removed by
    ``drain_warm_pool`` (and at exit)."""
    from sandbox import pool

    pool.configure(limits or SandboxLimits(), size, instance=instance)


def configure_reuse(*, max_idle: int, idle_s: float) -> None:
    """Bound this process's idle reused containers: at most ``max_idle``, each at most
    ``idle_s`` seconds idle."""
    from sandbox import reuse

    reuse.configure(max_idle=max_idle, idle_s=idle_s)


def discard_reused(key: str) -> int:
    """Remove this process's idle containers of submission ``key`` (deactivated or replaced)."""
    from sandbox import reuse

    return reuse.discard(key)


def drain_reused() -> int:
    """Remove every idle reused container of this process; return how many."""
    from sandbox import reuse

    return reuse.drain()


def drain_warm_pool() -> int:
    """Stop this process's warm pool and remove its idle containers; return how many."""
    from sandbox import pool

    return pool.drain()


__all__ = [
    "BACKENDS",
    "CLI_INSTANCE",
    "ModelAllowance",
    "ModelGateway",
    "PROCESS_INSTANCE",
    "SANDBOX_IMAGE",
    "SandboxLimits",
    "containers_by_instance",
    "configure_reuse",
    "create_handle",
    "detect_backend",
    "discard_reused",
    "drain_reused",
    "drain_warm_pool",
    "match_containers",
    "remove_containers",
    "remove_orphans",
    "remove_process_containers",
    "remove_unlabelled_containers",
    "start_warm_pool",
    "trusted_handle",
]

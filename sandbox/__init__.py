"""Running untrusted agent code (docs/sandbox.md).

Public API (the platform codes against exactly this)::

    from sandbox import SandboxLimits, create_handle, detect_backend, remove_orphans, SANDBOX_IMAGE
    from sandbox import start_warm_pool, drain_warm_pool

* ``create_handle(source, name=..., backend="docker" | "process", limits=...)`` returns a
  ``games.core.AgentHandle`` that runs ``source`` through ``sandbox/harness.py`` (docker: in a
  container from this process's warm pool when it has one ready, else a new one);
* ``trusted_handle(factory, name=...)`` runs a trusted agent (a house bot) in this process,
  beside sandboxed ones: before each of its calls it waits until every sandboxed agent this
  thread froze is confirmed frozen, as a sandboxed agent's thaw does;
* ``detect_backend()`` says which backend this machine can use;
* ``remove_orphans()`` removes sandbox containers a dead worker left behind;
  ``match_containers()`` / ``remove_containers(ids)`` find and remove the ones of a match that is
  over (the platform knows which matches are);
* ``start_warm_pool(limits, size)`` / ``drain_warm_pool()``: this process's warm pool of docker
  sandboxes (``sandbox/pool.py``).

The ``docker`` backend is the sandbox; the ``process`` backend is a convenience for machines
without Docker and isolates nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from games.core.agent import AgentHandle, CallResult, InProcessAgentHandle
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
) -> AgentHandle:
    """A handle that runs the agent ``source`` in ``backend``; ``start()`` sends it the source.

    Nothing runs until the referee calls ``start(game_id=..., timeout_s=...)``. ``match`` names
    the match it plays: a docker container is then named after it (``match_containers``).
    """
    if backend == "docker":
        from sandbox import pool
        from sandbox.docker_backend import DockerAgentHandle

        limits = limits or SandboxLimits()
        handle = pool.take(source, name=name, limits=limits) or DockerAgentHandle(
            source, name=name, limits=limits
        )
        handle.match = match
        return handle
    if backend == "process":
        from sandbox.process_backend import ProcessAgentHandle

        return ProcessAgentHandle(source, name=name, limits=limits)
    raise ValueError(f"unknown sandbox backend {backend!r}; use one of {', '.join(BACKENDS)}")


class _TrustedHandle(InProcessAgentHandle):
    """An in-process agent that never computes while a frozen opponent might still run."""

    def call(self, method: str, payload: Mapping[str, Any], timeout_s: float) -> CallResult:
        """Confirm this thread's pending freezes, then call the agent in this process."""
        from sandbox.docker_backend import confirm_freezes

        confirm_freezes()
        return super().call(method, payload, timeout_s)


def trusted_handle(factory: Callable[[], Any], *, name: str) -> AgentHandle:
    """A handle for a trusted agent (a house bot) playing in this process against sandboxed
    ones: it runs only once the kernel confirmed every opponent frozen, so a sandboxed agent
    gets no CPU during a house bot's turn either."""
    return _TrustedHandle(factory=factory, display_name=name)


def detect_backend(limits: SandboxLimits | None = None) -> str:
    """``"docker"`` when an engine answers and the sandbox image exists, else ``"process"``."""
    from sandbox.docker_backend import docker_ready

    return "docker" if docker_ready((limits or SandboxLimits()).image) else "process"


def match_containers() -> dict[str, str]:
    """The docker sandboxes bound to a match (``create_handle(match=...)``) on this machine's
    engine, {container id: match}; empty when no engine answers."""
    from sandbox.docker_backend import match_containers

    return match_containers()


def remove_containers(container_ids: list[str]) -> int:
    """Remove these docker sandboxes now (the platform's reaper, for matches that are over)."""
    from sandbox.docker_backend import remove_containers

    return remove_containers(container_ids)


def remove_orphans() -> int:
    """Remove the sandbox containers (selected by label) a dead worker left; return how many.

    Returns 0 when no engine answers: there is then nothing to clean.
    """
    from sandbox.docker_backend import remove_orphan_containers

    return remove_orphan_containers()


def start_warm_pool(limits: SandboxLimits | None = None, size: int = 2) -> None:
    """Keep ``size`` docker sandboxes with these limits started ahead of demand, refilled in the
    background (replaces a running pool; 0 stops it). Idle ones are removed by
    ``drain_warm_pool`` (and at exit)."""
    from sandbox import pool

    pool.configure(limits or SandboxLimits(), size)


def drain_warm_pool() -> int:
    """Stop this process's warm pool and remove its idle containers; return how many."""
    from sandbox import pool

    return pool.drain()


__all__ = [
    "BACKENDS",
    "SANDBOX_IMAGE",
    "SandboxLimits",
    "create_handle",
    "detect_backend",
    "drain_warm_pool",
    "remove_orphans",
    "start_warm_pool",
]

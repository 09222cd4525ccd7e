"""Finding and removing sandbox containers that are no longer needed, one instance at a time.

Everything here selects on the instance label (``sandbox/instance.py``): the containers of an
instance bound to a match (the platform knows which matches are over), its orphans (a dead
worker's), and, on an operator's explicit command only, every container of an instance that is
gone or those made before containers carried an instance. Nothing here raises when no engine
answers: there is then nothing to clean.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from typing import Any

from games.core.errors import PlatformError
from sandbox.container_config import EXPIRES_LABEL, LABEL, OWNER_LABEL, owner
from sandbox.engine import ENGINE_ERRORS, current
from sandbox.instance import INSTANCE_LABEL, PROCESS_INSTANCE, checked_instance, match_name_prefix

#: A container that stopped at least this long after it was created, and is still there, is an
#: orphan: a live worker removes its agents' containers as their matches end.
STALE_AFTER_S = 60


def instance_filters(instance: str) -> dict[str, list[str]]:
    """The engine's filter selecting the sandbox containers of ``instance`` (and no other's)."""
    return {"label": [LABEL, f"{INSTANCE_LABEL}={checked_instance(instance)}"]}


def _listed(filters: dict[str, Any]) -> list[dict[str, Any]]:
    try:
        return list(current().client().api.containers(all=True, filters=filters))
    except (PlatformError, *ENGINE_ERRORS):
        return []


def match_containers(*, instance: str = PROCESS_INSTANCE) -> dict[str, str]:
    """Every sandbox container of ``instance`` bound to a match, on this engine:
    {container id: match} (empty when no engine answers)."""
    prefix = match_name_prefix(instance)
    found: dict[str, str] = {}
    for info in _listed(instance_filters(instance)):
        if (info.get("Labels") or {}).get(INSTANCE_LABEL) != instance:
            continue  # the engine selected on the label already; never trust a name alone
        for name in info.get("Names") or ():
            bare = name.lstrip("/")
            if bare.startswith(prefix):  # arena-<instance>-match-<match>-<container id[:12]>
                match = bare.removeprefix(prefix).rpartition("-")[0]
                if match:
                    found[info["Id"]] = match
    return found


def remove_containers(container_ids: list[str]) -> int:
    """Remove these containers now (kill first if they run); return how many were asked."""
    engine = current()
    for container_id in container_ids:
        engine.remove_now(container_id)
    return len(container_ids)


def process_gone(pid: int) -> bool:
    """Whether process ``pid`` of this host is gone: not there, or a zombie (it exited and only
    waits for a parent to read its status; where PID 1 reaps nothing, as in some containers and
    micro-VMs, a killed worker's pool processes stay zombies for good)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:
        stat = open(f"/proc/{pid}/stat", encoding="ascii", errors="replace").read()  # noqa: SIM115
    except OSError:
        return False  # no /proc (not Linux): the signal said it exists
    # "pid (comm) S ...": the state follows the last ")" (comm may hold parentheses).
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


def remove_process_containers(*, instance: str, pids: set[int] | frozenset[int]) -> int:
    """Remove every container of ``instance`` that a process ``pids`` of this host created,
    whatever its state (running, paused, exited: a warm pool's idle ones and a match's); return
    how many. For a supervisor that stopped those processes (``make run``): nothing they made
    outlives them. Other instances' containers, and other processes', are never touched."""
    host = socket.gethostname()
    owners = {f"{host}:{pid}" for pid in pids}
    removed = 0
    for info in _listed(instance_filters(instance)):
        labels = info.get("Labels") or {}
        if labels.get(INSTANCE_LABEL) != instance or labels.get(OWNER_LABEL) not in owners:
            continue
        with contextlib.suppress(PlatformError, *ENGINE_ERRORS):
            current().remove_now(info["Id"])
            removed += 1
    return removed


def remove_orphan_containers(*, instance: str = PROCESS_INSTANCE, everything: bool = False) -> int:
    """Remove ``instance``'s containers that no live match of a worker uses; return how many.

    An orphan is a container stopped for over a minute, one past its expiry label, or one created
    by a process of this host that no longer runs (gone, or a zombie: ``process_gone``).
    ``everything`` removes every container of the instance (for tests and clean-up sweeps when
    none of its workers runs). Containers of other instances are never touched, whatever their
    state.
    """
    host = socket.gethostname()
    now = time.time()
    removed = 0
    for info in _listed(instance_filters(instance)):
        labels = info.get("Labels") or {}
        if labels.get(INSTANCE_LABEL) != instance:
            continue  # the engine selected on the label already; this is the rule, said twice
        owner_host, _, owner_pid = str(labels.get(OWNER_LABEL, "")).partition(":")
        try:
            expired = float(labels.get(EXPIRES_LABEL, "0")) < now
        except ValueError:
            expired = True
        owner_gone = owner_host == host and owner_pid.isdigit() and process_gone(int(owner_pid))
        # A container another worker has only just created or that just exited is not an orphan.
        stale = (
            info.get("State") not in ("running", "paused")
            and now - info.get("Created", 0) > STALE_AFTER_S
        )
        if everything or expired or owner_gone or stale:
            with contextlib.suppress(PlatformError, *ENGINE_ERRORS):
                current().client().api.remove_container(info["Id"], force=True)
                removed += 1
    return removed


def containers_by_instance() -> dict[str, list[str]]:
    """Every sandbox container on this engine, by the instance that made it: {instance:
    [container id]}, ``""`` for containers made before instances existed (for operators; empty
    when no engine answers)."""
    found: dict[str, list[str]] = {}
    for info in _listed({"label": LABEL}):
        instance = str((info.get("Labels") or {}).get(INSTANCE_LABEL, ""))
        found.setdefault(instance, []).append(info["Id"])
    return found


def remove_unlabelled_containers() -> int:
    """Remove the sandbox containers that carry no instance label (made before instances
    existed); return how many. Only an operator's explicit command calls this: a deployment of
    that older version still running on the engine would lose its agents."""
    return remove_containers(containers_by_instance().get("", []))


def containers_of_process(
    *, besides: set[str] | frozenset[str] = frozenset()
) -> list[dict[str, Any]]:
    """The sandbox containers this process created and has not removed, ``besides`` those ids
    (for leak checks). Waits for this process's background removals first."""
    engine = current()
    engine.wait_for_removals()
    filters = {"label": [f"{LABEL}=1", f"{OWNER_LABEL}={owner()}"]}
    listed = engine.client().api.containers(all=True, filters=filters)
    return [c for c in listed if c["Id"] not in besides]

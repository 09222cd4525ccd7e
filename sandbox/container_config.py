"""What a sandbox container is made of: ``SandboxLimits`` and an instance turned into the engine's
container configuration, its labels and its name.

Every limit comes from ``SandboxLimits``: no network, read-only root, a ``noexec,nosuid,nodev``
tmpfs at /tmp, uid 65534, no capabilities, ``no-new-privileges``, the seccomp profile of
``sandbox/seccomp.py``, memory without swap, one CPU, a pids limit, nofile/fsize/core ulimits, an
init process, private IPC, a capped log and an empty environment. The labels say which instance
made the container (``sandbox/instance.py``), which process (host name and pid) and until when it
may live; the reaper (``sandbox/reaper.py``) selects on them.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import socket
import time
from typing import Any

import docker.types

from sandbox.instance import INSTANCE_LABEL, checked_instance, match_name_prefix, name_prefix
from sandbox.limits import SandboxLimits
from sandbox.seccomp import profile_json
from sandbox.socket_channel import CHANNEL_MOUNT, CHANNEL_PATH

#: Every sandbox container carries this label; the reaper selects on it.
LABEL = "arena.sandbox"
#: Which worker (host name and pid) created the container.
OWNER_LABEL = "arena.sandbox.owner"
#: Unix time after which the container is an orphan whatever its owner says.
EXPIRES_LABEL = "arena.sandbox.expires"
#: ``1`` on containers started ahead of demand by the warm pool (``sandbox/pool.py``): idle ones
#: belong to their owner's pool until it drains them; once taken they serve one agent and go.
POOL_LABEL = "arena.sandbox.pool"

#: The command the image runs (the harness, ``sandbox/harness.py``).
HARNESS_COMMAND = ["python3", "-I", "-u", "/opt/arena/harness.py"]
#: The harness as the container's pid 1 supervisor (``SandboxLimits.supervised``).
SUPERVISOR_COMMAND = [*HARNESS_COMMAND, "--supervise"]


def owner() -> str:
    """This process, as the owner label names it: ``<host name>:<pid>``."""
    return f"{socket.gethostname()}:{os.getpid()}"


def container_labels(*, instance: str, limits: SandboxLimits, pool: bool) -> dict[str, str]:
    """The labels of a new container of ``instance`` made by this process."""
    labels = {
        LABEL: "1",
        INSTANCE_LABEL: checked_instance(instance),
        OWNER_LABEL: owner(),
        EXPIRES_LABEL: str(int(time.time()) + limits.max_lifetime_s),
    }
    if pool:
        labels[POOL_LABEL] = "1"
    return labels


def container_name(*, instance: str, pool: bool) -> str:
    """A new container's name, for people and for the instance: ``arena-<instance>-pool-…`` or
    ``arena-<instance>-agent-…``."""
    return f"{name_prefix(instance)}{'pool' if pool else 'agent'}-{secrets.token_hex(6)}"


def match_container_name(*, instance: str, match: str, container_id: str) -> str:
    """The name of a container once bound to a match:
    ``arena-<instance>-match-<match>-<container id[:12]>`` (``reaper.match_containers`` reads
    it back)."""
    return f"{match_name_prefix(instance)}{match}-{container_id[:12]}"


def reuse_container_name(*, instance: str, container_id: str) -> str:
    """The name of a container serving several matches of one submission:
    ``arena-<instance>-reuse-<container id[:12]>`` (never a match's name: the reaper must not
    take it for the container of its first match, which is over while it serves the next)."""
    return f"{name_prefix(instance)}reuse-{container_id[:12]}"


def container_key(limits: SandboxLimits) -> SandboxLimits:
    """``limits`` with the controller-only fields set to fixed values, for comparison.

    What decides how a container is created must match; ``freeze_idle`` and the reply caps are
    the controller's business and may differ between the pool and the agent it serves.
    """
    return dataclasses.replace(
        limits,
        freeze_idle=True,
        max_reply_bytes=1,
        max_reply_depth=1,
        process_address_space_mb=1,
        reuse_max_matches=1,
        reuse_max_age_s=1,
    )


def container_config(
    api: Any, limits: SandboxLimits, labels: dict[str, str], channel_dir: str | None = None
) -> dict[str, Any]:
    """Keyword arguments of ``APIClient.create_container`` (``api``): every limit, in one place.

    ``channel_dir``: the directory of this container's socket channel
    (``sandbox/socket_channel.py``), mounted read-only at ``CHANNEL_MOUNT``; the supervisor then
    talks over that socket and the container has no stdin.
    """
    mib = 1024 * 1024
    command = SUPERVISOR_COMMAND if limits.supervised else HARNESS_COMMAND
    binds: dict[str, dict[str, str]] | None = None
    if channel_dir is not None:
        command = [*SUPERVISOR_COMMAND, "--channel", CHANNEL_PATH]
        binds = {channel_dir: {"bind": CHANNEL_MOUNT, "mode": "ro"}}
    host_config = api.create_host_config(
        binds=binds,
        network_mode="none",
        read_only=True,
        tmpfs={"/tmp": f"rw,noexec,nosuid,nodev,size={limits.tmpfs_size_mb}m,mode=1777"},  # noqa: S108 - the container's own tmpfs
        cap_drop=["ALL"],
        security_opt=["no-new-privileges:true", f"seccomp={profile_json()}"],
        mem_limit=limits.mem_limit_mb * mib,
        memswap_limit=limits.mem_limit_mb * mib,
        mem_swappiness=0,
        nano_cpus=int(limits.cpus * 1e9),
        pids_limit=limits.pids_limit,
        ulimits=[
            docker.types.Ulimit(name="nofile", soft=limits.nofile_limit, hard=limits.nofile_limit),
            docker.types.Ulimit(
                name="fsize", soft=limits.fsize_limit_mb * mib, hard=limits.fsize_limit_mb * mib
            ),
            docker.types.Ulimit(name="core", soft=0, hard=0),
        ],
        # A supervised container's pid 1 is the supervisor itself: as the namespace's init it
        # is out of reach of its agents' signals, and it reaps their orphans as Docker's would.
        init=not limits.supervised,
        ipc_mode="private",
        shm_size=limits.shm_size_mb * mib,
        log_config=docker.types.LogConfig(
            type="json-file", config={"max-size": f"{limits.log_max_size_kb}k", "max-file": "1"}
        ),
        # When the host runs short of memory, the kernel should pick an agent, not the worker.
        oom_score_adj=1000,
        runtime=limits.runtime,
    )
    return {
        "image": limits.image,
        "command": command,
        "user": limits.user,
        "working_dir": "/tmp",  # noqa: S108 - the container's own tmpfs
        "environment": [],
        "stdin_open": channel_dir is None,
        "tty": False,
        "network_disabled": True,
        "labels": labels,
        "host_config": host_config,
    }

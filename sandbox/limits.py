"""``SandboxLimits``: every limit a sandboxed agent runs under, in one object (docs/sandbox.md).

The docker backend sets each of these on the container; the process backend sets the ones an
rlimit can express and says which it cannot. Settings (``arena/settings``) build one of these from
the environment and pass it down; the sandbox reads the environment only for the default image
name (``ARENA_SANDBOX_IMAGE``, the same variable the settings read).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

#: The image ``make image`` builds and the docker backend runs. ``ARENA_SANDBOX_IMAGE`` names
#: another one everywhere at once (platform settings, ``arena play``, the bench, the tests), so a
#: branch with a changed harness can test its own image without replacing the shared one.
#: The image's name when ``ARENA_SANDBOX_IMAGE`` is not set (the platform's settings use it too).
DEFAULT_SANDBOX_IMAGE = "agent-arena-sandbox:latest"
SANDBOX_IMAGE = os.environ.get("ARENA_SANDBOX_IMAGE") or DEFAULT_SANDBOX_IMAGE

#: Where the controller makes the per-container directories of the unix-socket channel
#: (``sandbox/socket_channel.py``); ``ARENA_SANDBOX_CHANNEL_DIR`` names another (it must be the
#: same path for this process and for the Docker engine).
DEFAULT_CHANNEL_DIR = os.environ.get("ARENA_SANDBOX_CHANNEL_DIR") or "/tmp/arena-sandbox-channels"  # noqa: S108 - a 0700 directory of this process's user
#: How the controller talks to a supervised container: ``socket``, a unix socket in a directory
#: bind-mounted into that container only (the calls bypass the engine); ``attach``, the
#: container's stdin and stdout through the engine's attach stream.
CHANNELS = ("socket", "attach")

#: How an idle agent is frozen: ``auto`` writes the container's cgroup freezer directly where
#: this process can reach it and falls back to ``docker pause``; ``pause`` always asks the daemon.
FREEZE_METHODS = ("auto", "pause")


@dataclass(frozen=True)
class SandboxLimits:
    """The limits of one sandboxed agent. Defaults are listed in docs/sandbox.md."""

    #: Image holding python3 and the harness (``make image`` builds it).
    image: str = SANDBOX_IMAGE
    #: Container runtime: ``None`` for the engine's default (runc), ``"runsc"`` for gVisor.
    runtime: str | None = None
    #: Freeze the agent between its turns so it cannot compute on the opponent's time (the
    #: cgroup freezer: about 0.1 ms written directly, about 10 ms through ``docker pause``).
    freeze_idle: bool = True
    #: ``auto``: the container's cgroup freezer written directly when reachable, else
    #: ``docker pause``; ``pause``: always ``docker pause`` (see ``sandbox/freezer.py``).
    freeze_method: str = "auto"
    #: Where this process sees the host's cgroup file system. A worker in a container needs the
    #: host's ``/sys/fs/cgroup`` mounted read-write somewhere (deploy/compose.yaml) and this set
    #: to that place; when the containers' cgroups are not found there, ``docker pause`` runs.
    cgroup_root: str = "/sys/fs/cgroup"
    #: Memory, with no swap on top (memswap = memory).
    mem_limit_mb: int = 256
    #: CPU share: 1.0 is one core.
    cpus: float = 1.0
    #: Processes and threads in the container (a cgroup limit, unlike the per-uid nproc ulimit).
    pids_limit: int = 64
    #: Size of the ``noexec,nosuid,nodev`` tmpfs at /tmp, the only writable directory.
    tmpfs_size_mb: int = 16
    #: Size of /dev/shm (private IPC namespace; also ``noexec``).
    shm_size_mb: int = 16
    #: Open file descriptors (nofile ulimit, soft = hard).
    nofile_limit: int = 256
    #: Largest file the agent may write (fsize ulimit); below the tmpfs size on purpose.
    fsize_limit_mb: int = 8
    #: Size the engine keeps of the container's own log (the json-file driver, one file).
    log_max_size_kb: int = 64
    #: User and group the agent runs as (nobody:nogroup).
    user: str = "65534:65534"
    #: Largest reply line the controller reads; a longer one is a protocol breach (crash).
    max_reply_bytes: int = 1024 * 1024
    #: Deepest nesting of lists and objects the controller accepts in an agent's result;
    #: deeper is a protocol breach (crash).
    max_reply_depth: int = 64
    #: After this long a container counts as orphaned even if its worker still seems alive.
    max_lifetime_s: int = 6 * 3600
    #: Docker: the harness runs as the container's pid 1 supervisor, which starts one agent
    #: process per match and sweeps what it left, so the container can serve several matches of
    #: one submission (``sandbox/reuse.py``); ``False`` runs the agent's harness itself under
    #: Docker's init, one match per container.
    supervised: bool = True
    #: How the controller talks to a supervised container (``CHANNELS``); a container that is
    #: not supervised, or runs under gVisor, always uses ``attach``.
    channel: str = "socket"
    #: Where the ``socket`` channel's per-container directories are made.
    channel_dir: str = DEFAULT_CHANNEL_DIR
    #: A reused container serves at most this many matches, then it is removed.
    reuse_max_matches: int = 100
    #: ... and it is removed once it is this old (seconds since it started).
    reuse_max_age_s: int = 1800
    #: Process backend only: address-space rlimit (it bounds virtual memory, not resident memory,
    #: so it is looser than ``mem_limit_mb``; Python reserves far more than it touches).
    process_address_space_mb: int = 1024

    def __post_init__(self) -> None:
        for field_name in (
            "mem_limit_mb",
            "pids_limit",
            "tmpfs_size_mb",
            "shm_size_mb",
            "nofile_limit",
            "fsize_limit_mb",
            "log_max_size_kb",
            "max_reply_bytes",
            "max_reply_depth",
            "max_lifetime_s",
            "process_address_space_mb",
            "reuse_max_matches",
            "reuse_max_age_s",
        ):
            if getattr(self, field_name) <= 0:
                raise ValueError(f"SandboxLimits.{field_name} must be positive")
        if self.cpus <= 0:
            raise ValueError("SandboxLimits.cpus must be positive")
        if self.freeze_method not in FREEZE_METHODS:
            raise ValueError(
                f"SandboxLimits.freeze_method is {self.freeze_method!r}: use "
                + " or ".join(repr(m) for m in FREEZE_METHODS)
            )
        if self.channel not in CHANNELS:
            raise ValueError(
                f"SandboxLimits.channel is {self.channel!r}: use "
                + " or ".join(repr(c) for c in CHANNELS)
            )
        if self.runtime not in (None, "runc", "runsc"):
            raise ValueError(f"SandboxLimits.runtime is {self.runtime!r}: use None or 'runsc'")

    @property
    def socket_channel(self) -> bool:
        """True when the controller talks to the container over the unix-socket channel."""
        return self.supervised and self.channel == "socket" and self.runtime != "runsc"

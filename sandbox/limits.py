"""``SandboxLimits``: every limit a sandboxed agent runs under, in one frozen object (DESIGN.md §4).

The docker backend sets each of these on the container; the process backend sets the ones an
rlimit can express and says which it cannot. Settings (``arena/settings``) build one of these from
the environment and pass it down; the sandbox never reads the environment itself.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The image ``make image`` builds and the docker backend runs.
SANDBOX_IMAGE = "agent-arena-sandbox:latest"


@dataclass(frozen=True)
class SandboxLimits:
    """The limits of one sandboxed agent. Defaults are those of DESIGN.md §4."""

    #: Image holding python3 and the harness (``make image`` builds it).
    image: str = SANDBOX_IMAGE
    #: Container runtime: ``None`` for the engine's default (runc), ``"runsc"`` for gVisor.
    runtime: str | None = None
    #: Freeze (``docker pause``) the agent between its turns so it cannot compute on the
    #: opponent's time. Costs two engine round trips a turn, outside the agent's clock.
    freeze_idle: bool = True
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
    #: After this long a container counts as orphaned even if its worker still seems alive.
    max_lifetime_s: int = 6 * 3600
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
            "max_lifetime_s",
            "process_address_space_mb",
        ):
            if getattr(self, field_name) <= 0:
                raise ValueError(f"SandboxLimits.{field_name} must be positive")
        if self.cpus <= 0:
            raise ValueError("SandboxLimits.cpus must be positive")
        if self.runtime not in (None, "runc", "runsc"):
            raise ValueError(f"SandboxLimits.runtime is {self.runtime!r}: use None or 'runsc'")

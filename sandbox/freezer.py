"""Freezing an idle agent's container without the Docker daemon (docs/sandbox.md).

``docker pause`` asks the daemon, which asks containerd, which asks runc to write the container's
cgroup freezer: about 10 ms each way on an idle host, and seconds (or "unable to freeze") when the
daemon is busy creating and removing containers. Writing the freezer ourselves costs about 0.1 ms:

* cgroup v2: write ``1`` to ``cgroup.freeze``, then wait until ``cgroup.events`` says
  ``frozen 1`` (the kernel notifies a ``poll`` on that file); thaw writes ``0``;
* cgroup v1: write ``FROZEN`` to ``freezer.state`` and read it until it says ``FROZEN`` (it says
  ``FREEZING`` while tasks are still on their way); thaw writes ``THAWED``.

A frozen cgroup gets no CPU at all, every thread and child process of the agent included.

Where the container's cgroup lives is detected, never assumed: from ``/proc/<pid>/cgroup`` of the
container's first process when this process can read it (and the path names the container), else
the two layouts Docker uses (``docker/<id>`` with the cgroupfs driver, ``system.slice/docker-<id>
.scope`` with the systemd driver) and the container's own ``CgroupParent``, under the mount found
at ``cgroup_root``. A worker that runs in a container sees the host's cgroups only where they are
mounted for it (read-write); without that, ``find_cgroup_freezer`` returns ``None`` and the docker
backend falls back to ``docker pause``.
"""

from __future__ import annotations

import contextlib
import os
import select
import time
from pathlib import Path

#: How long ``freeze`` waits for the kernel to confirm that every task is frozen.
FREEZE_CONFIRM_S = 1.0


class CgroupFreezer:
    """The freezer of one container's cgroup, written directly (cgroup v1 or v2)."""

    def __init__(self, directory: Path, version: int) -> None:
        self.directory = directory
        self.version = version
        #: Shown in the per-call log and by the bench.
        self.method = f"cgroup-v{version}"
        control = "cgroup.freeze" if version == 2 else "freezer.state"
        self._control = os.open(directory / control, os.O_RDWR | os.O_CLOEXEC)
        self._events: int | None = None
        self._poll: select.poll | None = None
        if version == 2:
            self._events = os.open(directory / "cgroup.events", os.O_RDONLY | os.O_CLOEXEC)
            self._poll = select.poll()
            self._poll.register(self._events, select.POLLPRI | select.POLLERR)

    def freeze(self, confirm_s: float = FREEZE_CONFIRM_S) -> bool:
        """Freeze every task of the cgroup; True once the kernel says all are frozen.

        False when that did not happen within ``confirm_s`` (the request stays in force) or the
        cgroup is gone (the container ended: the next exchange says how).
        """
        return self.request_freeze() and self.confirm_frozen(confirm_s)

    def request_freeze(self) -> bool:
        """Ask the kernel to freeze every task, without waiting for it; False if the cgroup is
        gone. The tasks stop within microseconds (at their next kernel entry or exit);
        ``confirm_frozen`` waits until every one has."""
        try:
            os.pwrite(self._control, b"1" if self.version == 2 else b"FROZEN", 0)
        except OSError:
            return False
        return True

    def confirm_frozen(self, confirm_s: float = FREEZE_CONFIRM_S) -> bool:
        """Wait until the kernel says every task is frozen; False after ``confirm_s`` (or when
        the cgroup is gone)."""
        deadline = time.perf_counter() + confirm_s
        spins = 0
        while True:
            try:
                if self._is_frozen():
                    return True
            except OSError:
                return False
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return False
            if self._poll is not None:
                # cgroup.events notifies a poll when "frozen" changes; the cap covers a missed
                # notification between our read and the poll.
                self._poll.poll(min(remaining, 0.01) * 1000)
            else:
                spins += 1
                time.sleep(0 if spins < 20 else min(remaining, 0.0005))

    def thaw(self) -> None:
        """Let the cgroup's tasks run again; ``OSError`` when the cgroup exists but refuses."""
        try:
            os.pwrite(self._control, b"0" if self.version == 2 else b"THAWED", 0)
        except OSError:
            if self.directory.exists():
                raise

    def is_frozen(self) -> bool:
        """What the kernel says now (False when the cgroup is gone)."""
        try:
            return self._is_frozen()
        except OSError:
            return False

    def _is_frozen(self) -> bool:
        if self._events is not None:
            return b"frozen 1" in os.pread(self._events, 256, 0)
        return os.pread(self._control, 64, 0).strip() == b"FROZEN"

    def close(self) -> None:
        """Close the control files; safe to call twice."""
        for fd in (self._control, self._events):
            if fd is not None and fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._control = -1
        self._events = None
        self._poll = None


def _hierarchies(root: Path) -> list[tuple[Path, int]]:
    """The cgroup mounts under ``root`` that can freeze, the preferred first."""
    found: list[tuple[Path, int]] = []
    if (root / "cgroup.controllers").exists():
        found.append((root, 2))  # the unified hierarchy alone (cgroup v2)
    if (root / "freezer" / "cgroup.procs").exists():
        found.append((root / "freezer", 1))  # cgroup v1 with its freezer controller
    if (root / "unified" / "cgroup.controllers").exists():
        found.append((root / "unified", 2))  # the hybrid layout's v2 part
    return found


def _proc_paths(pid: int | None) -> dict[int, str]:
    """The container's cgroup paths from ``/proc/<pid>/cgroup``: {2: v2 path, 1: freezer path}."""
    if not pid:
        return {}
    try:
        text = Path(f"/proc/{pid}/cgroup").read_text()
    except OSError:
        return {}
    paths: dict[int, str] = {}
    for line in text.splitlines():
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if number == "0" and not controllers:
            paths[2] = path
        elif "freezer" in controllers.split(","):
            paths[1] = path
    return paths


def find_cgroup_freezer(
    container_id: str, *, pid: int | None, cgroup_parent: str = "", root: str = "/sys/fs/cgroup"
) -> CgroupFreezer | None:
    """The freezer of container ``container_id`` when this process can write it, else ``None``."""
    from_proc = _proc_paths(pid)
    parent = cgroup_parent.strip("/")
    for mount, version in _hierarchies(Path(root)):
        candidates = []
        proc_path = from_proc.get(version, "")
        # /proc/<pid> may be another process in another pid namespace: trust the path only when
        # it names this container.
        if container_id in proc_path:
            candidates.append(proc_path.strip("/"))
        candidates += [f"docker/{container_id}", f"system.slice/docker-{container_id}.scope"]
        if parent:
            candidates += [f"{parent}/{container_id}", f"{parent}/docker-{container_id}.scope"]
        control = "cgroup.freeze" if version == 2 else "freezer.state"
        for relative in candidates:
            directory = mount / relative
            if os.access(directory / control, os.W_OK):
                try:
                    return CgroupFreezer(directory, version)
                except OSError:
                    continue
    return None

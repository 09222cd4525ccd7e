"""The ``process`` backend: the harness in a subprocess, for machines without Docker.

NOT ISOLATED. The agent runs as the same user as the controller, sees the same filesystem and
network, and can signal every process of that user. What it gets: its own session and process
group (killed as a group), an empty environment, a scratch working directory, no site-packages
(``-I -S``: the standard library only, as in the image), and rlimits for address space, open
files, file size and core dumps. Production settings refuse this backend.

What an rlimit cannot express is missing here: no memory cgroup (the address-space limit bounds
virtual memory), no pids cgroup (the nproc limit counts every process of the user), no network or
filesystem isolation, and a daemon that starts its own session outlives the match.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import IO, Any

from sandbox import host_wait
from sandbox.channel import ChannelClosed, ChannelTimeout, HarnessHandle, platform_failure
from sandbox.harness import CPU_OF_PROCESS_FLAG
from sandbox.limits import SandboxLimits

HARNESS_PATH = Path(__file__).with_name("harness.py")

#: Said once per process, so nobody mistakes this backend for a sandbox.
NOT_ISOLATED_WARNING = (
    "the process sandbox backend does NOT isolate agents: they run as your user with your files "
    "and network. Use it only for code you trust; install Docker and run `make image` for the "
    "real sandbox."
)
_warned = False


class ProcessAgentHandle(HarnessHandle):
    """Runs the harness in a subprocess with rlimits and its own session (not isolated)."""

    backend = "process"

    def __init__(self, source: str, *, name: str, limits: SandboxLimits | None = None) -> None:
        super().__init__(source, name=name, limits=limits)
        self._process: subprocess.Popen[bytes] | None = None
        self._workdir: str | None = None
        self._stderr: IO[bytes] | None = None
        self._frozen = False
        # SIGSTOP/SIGCONT to the process group: no cgroup, so a child in another group runs on.
        self.freeze_method = "signal" if self.limits.freeze_idle else None

    def _launch(self) -> None:
        global _warned
        if not _warned:
            _warned = True
            warnings.warn(NOT_ISOLATED_WARNING, RuntimeWarning, stacklevel=3)
        self._workdir = tempfile.mkdtemp(prefix="arena-agent-")
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in _release
        try:
            self._process = subprocess.Popen(
                # The harness takes its CPU time from its own process: the cgroup it sees is
                # the host's (or this worker's), shared with everything else running.
                [sys.executable, "-I", "-S", "-u", str(HARNESS_PATH), CPU_OF_PROCESS_FLAG],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                cwd=self._workdir,
                env={},
                start_new_session=True,
                close_fds=True,
            )
        except OSError as exc:
            raise platform_failure("start a Python subprocess", exc) from exc
        assert self._process.stdin is not None
        # Writes never block the referee: _send waits for the pipe with the call's deadline.
        os.set_blocking(self._process.stdin.fileno(), False)
        # Set from outside, after the fork: a preexec_fn is unsafe in a threaded controller, and
        # the harness runs no agent code before the load request we have not sent yet.
        self._set_rlimits(self._process.pid)

    def _gateway_setting(self) -> dict[str, Any]:
        # No site-packages here (``-I -S``): the harness adds the directory holding this
        # controller's ``openai`` package, so an agent's ``OpenAI()`` works as in the image.
        setting = super()._gateway_setting()
        spec = importlib.util.find_spec("openai")
        if spec is not None and spec.origin is not None:
            setting["sys_path"] = [str(Path(spec.origin).parent.parent)]
        return setting

    def _set_rlimits(self, pid: int) -> None:
        mib = 1024 * 1024
        limits = self.limits
        for which, value in (
            (resource.RLIMIT_AS, limits.process_address_space_mb * mib),
            (resource.RLIMIT_NOFILE, limits.nofile_limit),
            (resource.RLIMIT_FSIZE, limits.fsize_limit_mb * mib),
            (resource.RLIMIT_CORE, 0),
        ):
            try:
                resource.prlimit(pid, which, (value, value))
            except (OSError, ValueError) as exc:
                self._kill()
                raise platform_failure(f"set rlimit {which} on the agent", exc) from exc

    def _send(self, data: bytes, deadline: float) -> None:
        assert self._process is not None and self._process.stdin is not None
        try:
            fd = self._process.stdin.fileno()
        except ValueError:
            raise ChannelClosed() from None
        view = memoryview(data)
        while view:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise ChannelTimeout()
            _, writable, _ = select.select([], [fd], [], remaining)
            if not writable:
                raise ChannelTimeout()
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                written = 0
            except OSError:
                raise ChannelClosed() from None
            view = view[written:]

    def _receive(self, deadline: float) -> bytes:
        assert self._process is not None and self._process.stdout is not None
        fd = self._process.stdout.fileno()
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            raise ChannelTimeout()
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            raise ChannelTimeout()
        try:
            return os.read(fd, 1 << 16)
        except OSError:
            return b""

    def _signal_group(self, signum: int, *, whole_session: bool = False) -> None:
        if self._process is None:
            return
        pid = self._process.pid
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signum)
        if whole_session:
            # Children that moved to a process group of their own but kept the session.
            for other in _session_members(pid):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(other, signum)

    def _agent_threads(self) -> list[int]:
        return [] if self._process is None else host_wait.process_threads(self._process.pid)

    def _freeze(self) -> None:
        if self.limits.freeze_idle and not self._frozen:
            self._signal_group(signal.SIGSTOP)
            self._frozen = True

    def _thaw(self) -> None:
        if self._frozen:
            self._signal_group(signal.SIGCONT)
            self._frozen = False

    def _kill(self) -> None:
        if self._process is None:
            return
        with contextlib.suppress(OSError):
            if self._process.stdin is not None:
                self._process.stdin.close()
        self._signal_group(signal.SIGKILL, whole_session=True)
        self._frozen = False
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=5)

    def _exit_description(self) -> str:
        if self._process is None:
            return "it never started"
        try:
            code = self._process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "its output closed but the process is still running"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            how = f"killed by {name}"
            if -code == signal.SIGKILL:
                how += " (out of memory, or killed by itself or another process)"
        else:
            how = f"exited with code {code}"
        return how + self._stderr_tail()

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0)
            tail = self._stderr.read()[-2000:].decode("utf-8", errors="replace").strip()
        except (OSError, ValueError):
            return ""
        return f"; it wrote: {tail}" if tail else ""

    def _release(self) -> None:
        self._kill()
        if self._process is not None:
            for stream in (self._process.stdin, self._process.stdout):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
        if self._stderr is not None:
            with contextlib.suppress(OSError):
                self._stderr.close()
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None


def _session_members(session_id: int) -> list[int]:
    """Pids of processes in session ``session_id`` (read from /proc; empty where there is none)."""
    members = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # After the command: state, ppid, pgrp, session.
        if len(fields) > 3 and int(fields[3]) == session_id:
            members.append(int(entry))
    return members

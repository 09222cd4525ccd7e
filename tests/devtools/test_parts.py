"""Waiting for a server scales with what it does: as long as it lives and works, never a fixed
short timeout that a loaded host overruns, and at once when it died or hangs."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from devtools.parts import wait_while_working


def _python(code: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", code])  # noqa: S603 (our own code)


def test_a_server_that_keeps_working_is_waited_for_past_any_short_timeout() -> None:
    # Busy for 3 s before it is "ready": longer than the stall bound, but it never stalls.
    proc = _python("import time\nend = time.time() + 3\nwhile time.time() < end: pass")
    began = time.monotonic()
    try:
        wait_while_working(
            lambda: proc.poll() is not None or time.monotonic() - began > 3,
            process=proc,
            what="busy",
            stall_s=1.5,
        )
    finally:
        proc.kill()
        proc.wait()


def test_a_server_that_exits_is_said_at_once_with_its_code() -> None:
    proc = _python("raise SystemExit(7)")
    proc.wait()
    with pytest.raises(RuntimeError, match="exited \\(code 7\\)"):
        wait_while_working(lambda: False, process=proc, what="dead")


def test_a_server_that_hangs_without_using_cpu_is_given_up_on() -> None:
    proc = _python("import time; time.sleep(60)")
    try:
        with pytest.raises(RuntimeError, match="used no CPU"):
            wait_while_working(lambda: False, process=proc, what="hung", stall_s=1.0)
    finally:
        proc.kill()
        proc.wait()

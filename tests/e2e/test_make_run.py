"""``make run`` (manage.py arena_run): the embedded set-up comes up with SQLite and the
filesystem broker, validates an upload on its own worker, and Ctrl-C stops every process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena_cli.submit_cmd import get_token, upload, wait_for_status
from games.core import get_game_spec
from tests.e2e.parts import ROOT, free_port, manage, platform_env, wait_for_port

pytestmark = [pytest.mark.e2e]


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(x) for x in out.stdout.split()]


def test_arena_run_serves_validates_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    port = free_port()
    env = platform_env(
        tmp_path, f"sqlite:///{tmp_path / 'arena.sqlite3'}", ARENA_ALLOW_PROCESS_SANDBOX="1"
    )
    log = (tmp_path / "run.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "manage.py"),
            "arena_run",
            "--addr",
            f"127.0.0.1:{port}",
            "--concurrency",
            "1",
        ],
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        assert wait_for_port(port, 60), (tmp_path / "run.log").read_text()
        children = _children(proc.pid)
        assert len(children) == 2  # the worker (with beat) and the web server
        manage(
            env,
            "shell",
            "-c",
            "from arena.accounts.models import User; "
            "User.objects.create_user('fay', password='fay-pass-123')",
        )
        url = f"http://127.0.0.1:{port}"
        token = get_token(url, "fay", "fay-pass-123")
        agent = tmp_path / "agent.py"
        agent.write_text(get_game_spec("simple-card").starter_source())
        submission = wait_for_status(url, token, upload(url, token, agent)["id"], timeout_s=90)
        assert submission["status"] == "accepted", submission
        assert (tmp_path / "broker").is_dir()  # the filesystem transport carried the task
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in the terminal does
        assert proc.wait(timeout=60) is not None
        deadline = time.monotonic() + 30
        while any(Path(f"/proc/{c}").exists() for c in children) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [c for c in children if Path(f"/proc/{c}").exists()], "a child outlived Ctrl-C"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
    text = (tmp_path / "run.log").read_text()
    assert "Agent Arena is up on" in text

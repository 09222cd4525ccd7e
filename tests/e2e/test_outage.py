"""PostgreSQL killed under a running site, then started again: meanwhile pages answer at once
with a plain 503 (no hang, no traceback), liveness stays up and readiness says unavailable;
afterwards the same web process serves pages again by itself."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from devtools.parts import (
    _pg_bin,
    free_port,
    manage,
    platform_env,
    runserver_command,
    start_process,
    wait_for_port,
)
from tests.conftest import wait_for
from tests.e2e.conftest import http_get
from tests.e2e.servers import require_postgres

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.slow]


class Postgres:
    """A PostgreSQL cluster that can be killed with SIGKILL and started again on its data."""

    def __init__(self) -> None:
        bindir = _pg_bin()
        assert bindir is not None
        self.bindir = bindir
        self.port = free_port()
        self.workdir = Path(tempfile.mkdtemp(prefix="arena-pg-outage-"))
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            self.as_user = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.workdir, "postgres", "postgres")
        subprocess.run(
            [*self.as_user, str(bindir / "initdb"), "-D", str(self.workdir / "data"),
             "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"],
            check=True, capture_output=True,
        )  # fmt: skip
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()
        for _ in range(100):  # "the database system is starting up" for a moment
            created = subprocess.run(
                [str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port),
                 "-U", "postgres", "arena"],
                capture_output=True,
            )  # fmt: skip
            if created.returncode == 0:
                break
            time.sleep(0.2)
        else:
            raise RuntimeError(f"createdb failed: {created.stderr.decode()}")

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/arena"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [*self.as_user, str(self.bindir / "postgres"), "-D", str(self.workdir / "data"),
             "-p", str(self.port), "-k", str(self.workdir), "-c", "listen_addresses=127.0.0.1",
             "-c", "fsync=off"],
            stdout=subprocess.DEVNULL, stderr=(self.workdir / "postgres.log").open("ab"),
            start_new_session=True,
        )  # fmt: skip
        assert wait_for_port(self.port, 60), (self.workdir / "postgres.log").read_text()[-3000:]

    def kill(self) -> None:
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)  # the postmaster and every backend
        self.proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and wait_for_port(self.port, 0.1):
            time.sleep(0.2)  # until nothing listens any more
        # The killed postmaster may linger as a zombie nobody reaps (no init in a container),
        # which makes the next start think it still runs: its lock files go with it.
        (self.workdir / "data" / "postmaster.pid").unlink(missing_ok=True)
        for stale in self.workdir.glob(".s.PGSQL.*"):
            stale.unlink(missing_ok=True)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        shutil.rmtree(self.workdir, ignore_errors=True)


def get(url: str) -> tuple[int, str, dict[str, str]]:
    status, body, headers = http_get(url, timeout_s=20)
    return status, body.decode(), headers


def wait_until(check: Callable[[], Any], what: str, timeout_s: float = 60.0) -> Any:
    return wait_for(check, timeout_s=timeout_s, what=what, every_s=0.5)


def test_pages_answer_503_while_postgres_is_down_and_recover_after(tmp_path: Path) -> None:
    require_postgres()
    pg = Postgres()
    web = None
    try:
        env = platform_env(tmp_path / "var", pg.url, ARENA_DB_CONNECT_TIMEOUT_S="3")
        manage(env, "migrate", "--verbosity", "0")
        port = free_port()
        log = (tmp_path / "web.log").open("wb")
        web = start_process(runserver_command(port), env, log)
        assert wait_for_port(port, 60)
        base = f"http://127.0.0.1:{port}"
        wait_until(lambda: get(base + "/")[0] == 200, "the home page")
        assert get(base + "/games/simple-card/")[0] == 200

        pg.kill()
        for path in ("/", "/games/simple-card/", "/api/leaderboard/simple-card"):
            status, body, headers = get(base + path)
            assert status == 503, (path, status, body[:500])
            assert "briefly unavailable" in body and "Traceback" not in body, body[:500]
            assert headers.get("Retry-After") == "30"
        assert get(base + "/healthz")[0] == 200  # the process itself is alive
        status, body, _ = get(base + "/readyz")
        assert status == 503 and '"unavailable"' in body

        pg.start()
        # The same web process, with no restart, serves pages again.
        wait_until(lambda: get(base + "/")[0] == 200, "the home page after PostgreSQL is back")
        assert get(base + "/games/simple-card/")[0] == 200
    finally:
        if web is not None:
            web.terminate()
            web.wait(timeout=30)
        pg.close()

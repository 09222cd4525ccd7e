"""Redis killed during play and started again (on its append-only file, as compose runs it):
meanwhile pages answer and readiness says unavailable; afterwards the worker, beat and
matchmaking resume by themselves, and every ranked match ends, rated exactly once, with no
agent charged a forfeit for the outage."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from pathlib import Path

import pytest

from devtools.parts import (
    ROOT,
    free_port,
    manage,
    platform_env,
    wait_for_port,
)
from games.core import get_game_spec
from tests.e2e.servers import postgres, require_postgres, require_redis
from tests.e2e.test_ops_live import get
from tests.e2e.test_upgrades import SEATS
from tests.e2e.test_worker_nodes import LADDER_STATE, _result, _wait, seed_ladder

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

#: How long Redis stays away.
OUTAGE_S = 20


class Redis:
    def __init__(self) -> None:
        self.port = free_port()
        self.workdir = Path(tempfile.mkdtemp(prefix="arena-redis-outage-"))
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        assert wait_for_port(self.port, 30), "redis-server did not start"

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(timeout=30)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        shutil.rmtree(self.workdir, ignore_errors=True)


def _spawn(env: dict[str, str], log: Path, *argv: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, *argv],
        env=env,
        cwd=ROOT,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    with suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def _finished(env: dict[str, str]) -> int:
    return int(_result(manage(env, "shell", "-c", LADDER_STATE.format(watch=[])))["finished"])


def test_play_resumes_after_redis_is_killed_and_started_again(tmp_path: Path) -> None:
    require_redis()
    require_postgres()
    redis = Redis()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        with postgres() as db_url:
            env = platform_env(
                tmp_path / "var",
                db_url,
                REDIS_URL=redis.url,
                ARENA_SANDBOX_BACKEND="auto",
                ARENA_ALLOW_PROCESS_SANDBOX="1",
                ARENA_MATCHMAKING_INTERVAL_S="1",
                ARENA_SWEEP_INTERVAL_S="5",
                # A queued match whose message was lost with Redis is sent again soon.
                ARENA_MATCH_QUEUED_MAX_S="20",
            )
            # Kept (outside pytest's rotating temporary folders) for a failure's post-mortem.
            logs = Path(tempfile.mkdtemp(prefix="arena-redis-outage-logs-"))
            seed_ladder(env, get_game_spec("simple-card").starter_source(), "simple-card")
            port = free_port()
            procs.append(
                _spawn(env, logs / "worker.log", str(ROOT / "manage.py"), "arena_worker",
                       "--concurrency", "2")
            )  # fmt: skip
            procs.append(
                _spawn(env, logs / "beat.log", "-m", "celery", "-A", "arena.celery_app", "beat",
                       "-s", str(tmp_path / "beat-schedule"))
            )  # fmt: skip
            procs.append(
                _spawn(env, logs / "web.log", str(ROOT / "manage.py"), "runserver",
                       f"127.0.0.1:{port}", "--noreload", "--insecure")
            )  # fmt: skip
            base = f"http://127.0.0.1:{port}"
            assert wait_for_port(port, 60)
            _wait(lambda: get(base + "/readyz")[0] == 200, 120, "readiness")
            try:
                _wait(lambda: _finished(env) >= 2, 240, "ranked matches before the outage", 2)
            except AssertionError as exc:
                raise AssertionError(f"{exc}; logs in {logs}") from None

            redis.kill()
            _wait(lambda: get(base + "/readyz")[0] == 503, 30, "readiness to notice", 0.5)
            assert get(base + "/")[0] == 200  # pages that need no broker still answer
            assert get(base + "/healthz")[0] == 200
            time.sleep(OUTAGE_S)  # the outage lasts; nothing to wait for
            before = _finished(env)
            redis.start()

            # Worker, beat and matchmaking come back by themselves: new matches finish.
            _wait(lambda: get(base + "/readyz")[0] == 200, 120, "readiness after the outage")
            _wait(lambda: _finished(env) >= before + 2, 300, "matches after the outage", 3)
            _stop(procs.pop(1))  # beat: no new pairings, then everything ends
            final = _wait(
                lambda: (s := _result(manage(env, "shell", "-c", LADDER_STATE.format(watch=[]))))[
                    "statuses"
                ].keys()
                <= {"finished", "error"}
                and s,
                300,
                "every ranked match to end",
                3,
            )
            seats = _result(manage(env, "shell", "-c", SEATS))
            assert final["not_rated_once"] == [] and final["rated_unfinished"] == [], final
            assert final["bad_chains"] == [] and final["finished_unrated"] == 0, final
            assert "error" not in final["statuses"], final
            assert seats["forfeits"] == [], seats
    finally:
        for proc in procs:
            _stop(proc)
        redis.close()

"""Redis killed during play and started again (on its append-only file, as compose runs it):
meanwhile pages answer and readiness says unavailable; afterwards the worker, beat and
matchmaking resume by themselves, and every ranked match ends, rated exactly once, with no
agent charged a forfeit for the outage. Matches that ended while Redis was away leave no
message behind to be delivered again, and no heartbeat still lists them as running."""

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
from typing import Any

import pytest

from devtools.parts import (
    ROOT,
    free_port,
    manage,
    platform_env,
    wait_for_port,
)
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


#: A deliberate player (a few seconds a match), so that matches are in play when Redis goes away
#: and end while it is away: their acknowledgements cannot reach it.
SLOW_AGENT = """
import time


class Agent:
    GAME = "simple-card"

    def on_match_start(self, match_info):
        time.sleep(1)

    def on_turn(self, round_state):
        time.sleep(0.3)
        return {"type": "play_card", "card": max(round_state["hand"])}
"""

#: What is left over once play ends: this deployment's unacknowledged match messages (by match
#: and the match's status) and the matches the workers' heartbeats list as running.
LEFTOVERS = """
import base64, json
import redis
from django.conf import settings
from arena.matches.models import Match
from arena.ops.models import WorkerHeartbeat

client = redis.Redis.from_url(settings.REDIS_URL)
queues = set(settings.ARENA_QUEUES.values())
unacked = []
for raw in client.hvals("unacked"):
    message, _, routing_key = json.loads(raw)
    if routing_key in queues and str(message["headers"].get("task")).endswith("match_run_task"):
        match_id = int(json.loads(base64.b64decode(message["body"]))[0][0])
        unacked.append([match_id, Match.objects.get(pk=match_id).status])
print("RESULT=" + json.dumps({
    "unacked": sorted(unacked),
    "heartbeat_running": sorted(
        m for w in WorkerHeartbeat.objects.all() for m in (w.running_matches or [])
    ),
    "running": sorted(Match.objects.filter(status="running").values_list("pk", flat=True)),
}))
"""


#: When the first ranked match started after ``since`` (a Unix time).
FIRST_START = """
import json
from datetime import datetime, timezone
from arena.matches.models import Match

since = datetime.fromtimestamp({since!r}, tz=timezone.utc)
first = Match.objects.filter(kind="ranked", started__gte=since).order_by("started").first()
print("RESULT=" + json.dumps({{"first": first.started.timestamp() if first else None}}))
"""


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
            )
            # Kept (outside pytest's rotating temporary folders) for a failure's post-mortem.
            logs = Path(tempfile.mkdtemp(prefix="arena-redis-outage-logs-"))
            seed_ladder(env, SLOW_AGENT, "simple-card")
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

            # In the middle of play: the matches running now end while Redis is away.
            _wait(lambda: _result(manage(env, "shell", "-c", LEFTOVERS))["running"], 60,
                  "a match in play", 0.5)  # fmt: skip
            redis.kill()
            _wait(lambda: get(base + "/readyz")[0] == 503, 30, "readiness to notice", 0.5)
            assert get(base + "/")[0] == 200  # pages that need no broker still answer
            assert get(base + "/healthz")[0] == 200
            time.sleep(OUTAGE_S)  # the outage lasts; nothing to wait for
            before = _finished(env)
            redis.start()
            back = time.time()

            # Worker, beat and matchmaking come back by themselves: new matches finish.
            _wait(lambda: get(base + "/readyz")[0] == 200, 120, "readiness after the outage")
            _wait(lambda: _finished(env) >= before + 2, 300, "matches after the outage", 3)
            first = _result(manage(env, "shell", "-c", FIRST_START.format(since=back)))["first"]
            print(f"play resumed {first - back:.1f} s after Redis came back")
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
            # Nothing stale once play is over: no message of a finished match waits to be
            # delivered again (an hour later), and no heartbeat lists a match that is over.
            last: list[Any] = []

            def nothing_stale() -> Any:
                last[:] = [_result(manage(env, "shell", "-c", LEFTOVERS))]
                return not last[0]["unacked"] and not last[0]["heartbeat_running"] and last[0]

            try:
                leftovers = _wait(nothing_stale, 60, "nothing stale", 3)
            except AssertionError:
                raise AssertionError(f"stale after play ended: {last}; logs in {logs}") from None
            assert leftovers["running"] == [], leftovers
            assert final["not_rated_once"] == [] and final["rated_unfinished"] == [], final
            assert final["bad_chains"] == [] and final["finished_unrated"] == 0, final
            assert "error" not in final["statuses"], final
            assert seats["forfeits"] == [], seats
    finally:
        for proc in procs:
            _stop(proc)
        redis.close()

"""PostgreSQL killed under a running site, then started again: meanwhile pages answer at once
with a plain 503 (no hang, no traceback), liveness stays up and readiness says unavailable;
afterwards the same web process serves pages again by itself. And under play (a real worker,
beat and Redis): every ladder plays again within a minute of the database's return, no queued
match is left without its message, the log says one line per match, and every match ends
rated exactly once with no forfeit."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from devtools.parts import (
    PROCESS_SANDBOX,
    ROOT,
    _pg_bin,
    celery_command,
    free_port,
    manage,
    platform_env,
    redis_server,
    runserver_command,
    start_process,
    wait_for_port,
)
from tests.conftest import wait_for
from tests.e2e.conftest import http_get
from tests.e2e.servers import require_postgres, require_redis
from tests.e2e.test_upgrades import SEATS
from tests.e2e.test_worker_nodes import LADDER_STATE, _result

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

    def stop_immediate(self) -> None:
        """``pg_ctl stop -m immediate``: every backend gone at once, as a crash or an operator's
        hurried restart leaves it (the next start recovers from the log)."""
        subprocess.run(
            [*self.as_user, str(self.bindir / "pg_ctl"), "stop", "-D", str(self.workdir / "data"),
             "-m", "immediate", "-w"],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        assert self.proc is not None
        self.proc.wait(timeout=30)

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


# --- Play across a PostgreSQL outage (a real worker, beat and Redis) -----------------------------

#: The ladders that play (fast games); each must play again soon after the database returns.
GAMES = ["simple-card", "split-or-steal", "liars-dice"]
PLAYERS = ["ann", "bob", "cy", "dee"]
#: How long PostgreSQL stays away (the outage the ladders once took 15 minutes to recover from).
PG_OUTAGE_S = 30
#: Every ladder plays again (a match of it starts) within this long of the database's return.
RESUME_WITHIN_S = 60
#: simple-card's agents take their time, so that matches are in the middle of play when the
#: database goes away (their log entries then cannot be stored).
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

SEED_LADDERS = """
import hashlib
from arena.accounts.models import User
from arena.ratings.services import rating_ensure
from arena.submissions.models import Agent, Submission
from games.core import get_game_spec

for name in {players!r}:
    owner = User.objects.create_user(name, password=name + "-pass-123")
    for game, source in {sources!r}.items():
        spec = get_game_spec(game)
        source = source or spec.starter_source()
        agent = Agent.objects.create(owner=owner, game=spec.id, name="starter")
        submission = Submission.objects.create(
            agent=agent, version=1, source=source, game_version=spec.version,
            sha256=hashlib.sha256(source.encode()).hexdigest(),
            status=Submission.Status.ACCEPTED, active=True,
        )
        rating_ensure(submission=submission)
"""

#: Per ladder: finished ranked matches and the start times of its attempts; the ranked matches
#: not over; and the match ids the broker holds a message for (waiting in a queue, or taken by
#: a worker and not acknowledged), read from Redis directly.
PLAY_STATE = """
import base64, json
import redis
from django.conf import settings
from arena.matches.models import Match

ranked = Match.objects.filter(kind="ranked")
client = redis.Redis.from_url(settings.REDIS_URL)
queues = set(settings.ARENA_QUEUES.values())

def match_of(message):
    headers = message.get("headers") or {{}}
    if not str(headers.get("task", "")).endswith("match_run_task"):
        return None
    body = base64.b64decode(message["body"])
    return int(json.loads(body)[0][0])

in_broker = set()
for queue in queues:
    for raw in client.lrange(queue, 0, -1):
        in_broker.add(match_of(json.loads(raw)))
for raw in client.hvals("unacked"):
    message, _, routing_key = json.loads(raw)
    if routing_key in queues:
        in_broker.add(match_of(message))
print("RESULT=" + json.dumps({{
    "games": {{
        game: {{
            "finished": ranked.filter(game=game, status="finished").count(),
            "started": sorted(
                s.timestamp() for s in ranked.filter(game=game, started__isnull=False)
                .values_list("started", flat=True)
            ),
        }}
        for game in {games!r}
    }},
    "open": {{
        m.pk: {{"status": m.status, "attempts": m.attempts, "error": m.error,
               "enqueued": m.enqueued.timestamp() if m.enqueued else None}}
        for m in ranked.exclude(status__in=["finished", "error"])
    }},
    "in_broker": sorted(m for m in in_broker if m is not None),
}}))
"""


def _play_state(env: dict[str, str]) -> dict[str, Any]:
    return dict(_result(manage(env, "shell", "-c", PLAY_STATE.format(games=GAMES))))


def test_every_ladder_plays_again_soon_after_a_postgres_outage(tmp_path: Path) -> None:
    require_redis()
    require_postgres()
    pg = Postgres()
    procs: list[subprocess.Popen[bytes]] = []
    logs = Path(tempfile.mkdtemp(prefix="arena-pg-outage-logs-"))  # kept for a post-mortem
    try:
        with redis_server() as redis_url:
            env = platform_env(
                tmp_path / "var",
                pg.url,
                REDIS_URL=redis_url,
                ARENA_MATCHMAKING_INTERVAL_S="1",
                ARENA_SWEEP_INTERVAL_S="5",
                ARENA_DB_CONNECT_TIMEOUT_S="3",
                **PROCESS_SANDBOX,
            )
            manage(env, "migrate", "--verbosity", "0")
            sources = {game: SLOW_AGENT if game == "simple-card" else "" for game in GAMES}
            manage(env, "shell", "-c", SEED_LADDERS.format(players=PLAYERS, sources=sources))
            worker_log = logs / "worker.log"
            procs.append(
                start_process(
                    [sys.executable, str(ROOT / "manage.py"), "arena_worker", "--concurrency",
                     "2", "--", "--loglevel", "INFO"],
                    env, worker_log.open("wb"), new_session=True,
                )
            )  # fmt: skip
            procs.append(
                start_process(
                    celery_command("beat", "-s", str(tmp_path / "beat-schedule")),
                    env, (logs / "beat.log").open("wb"), new_session=True,
                )
            )  # fmt: skip

            def every_ladder_played() -> bool:
                state = _play_state(env)
                return all(g["finished"] >= 1 for g in state["games"].values())

            try:
                wait_until(every_ladder_played, "every ladder to play", timeout_s=300)
            except AssertionError as exc:
                raise AssertionError(f"{exc}; logs in {logs}") from None

            # The outage, as an operator's restart would cause it: every backend gone at once.
            log_before = worker_log.stat().st_size
            pg.stop_immediate()
            time.sleep(PG_OUTAGE_S)
            pg.start()
            back = time.time()
            outage_log = worker_log.read_bytes()[log_before:].decode(errors="replace")

            def every_ladder_resumed() -> dict[str, float] | None:
                state = _play_state(env)
                resumed = {
                    game: min(s for s in g["started"] if s >= back) - back
                    for game, g in state["games"].items()
                    if any(s >= back for s in g["started"])
                }
                return resumed if len(resumed) == len(GAMES) else None

            resumed = wait_until(
                every_ladder_resumed, f"every ladder to play again; logs in {logs}", 180
            )
            print("play resumed after the database's return (s): " + json.dumps(resumed))
            assert max(resumed.values()) <= RESUME_WITHIN_S, (resumed, logs)

            # No queued match is left without a message: each is in a queue or with a worker.
            time.sleep(5)
            state = _play_state(env)
            lost = [
                m for m, info in state["open"].items()
                if info["status"] == "queued" and int(m) not in state["in_broker"]
                and info["enqueued"] is not None and info["enqueued"] < time.time() - 10
            ]  # fmt: skip
            assert lost == [], (lost, state, logs)

            # One line per match and cause while the database was away, never a traceback
            # per log entry (a 30-second outage once logged 33,700 lines).
            dropped = [line for line in outage_log.splitlines() if "log entr" in line]
            assert len(dropped) <= 2 * len(GAMES) * 2, dropped[:20]
            assert (
                "log entry" not in outage_log
                or "Traceback" not in outage_log.split("log entr", 1)[1][:2000]
            ), outage_log[:5000]

            # Settle: no new pairings, then every ranked match ends, rated exactly once, with no
            # forfeit and no error for the outage.
            os.killpg(procs[1].pid, signal.SIGTERM)
            procs[1].wait(timeout=60)
            final = wait_until(
                lambda: (s := _result(manage(env, "shell", "-c", LADDER_STATE.format(watch=[]))))[
                    "statuses"
                ].keys()
                <= {"finished", "error"}
                and s,
                "every ranked match to end",
                300,
            )
            seats = _result(manage(env, "shell", "-c", SEATS))
            assert final["not_rated_once"] == [] and final["rated_unfinished"] == [], final
            assert final["bad_chains"] == [] and final["finished_unrated"] == 0, final
            assert seats["forfeits"] == [], seats
    finally:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
        pg.close()

"""Many worker hosts (deploy/README.md): one Redis, one PostgreSQL, one beat, and two worker nodes
(distinct ``-n`` names, separate process trees, each starting its own sandbox containers) serve
one ladder. Matches spread over both; when one node is killed with ``kill -9`` in the middle of a
match, the other finishes that match, and every ranked match is rated exactly once."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

import pytest

from devtools.parts import (
    ROOT,
    celery_command,
    manage,
    platform_env,
    start_process,
)
from games.core import get_game_spec
from tests.conftest import wait_for
from tests.e2e.servers import redis_and_postgres

#: The marks of a test on ``cluster_env`` (Redis, PostgreSQL, agents in Docker); shared with the
#: upgrade test, which runs on the same cluster.
CLUSTER_MARKS = [
    pytest.mark.e2e,
    pytest.mark.slow,
    pytest.mark.docker,
    pytest.mark.redis,
    pytest.mark.postgres,
]
pytestmark = CLUSTER_MARKS

GAME = "simple-card"
PLAYERS = ["ann", "bob", "cy", "dee"]
#: A deliberate player (about 8 s a match: 3 s to start, 0.5 s a turn, per seat), so that a node
#: can be killed while it is in the middle of a match.
AGENT = """
import time


class Agent:
    GAME = "simple-card"

    def on_match_start(self, match_info):
        time.sleep(3)

    def on_turn(self, round_state):
        time.sleep(0.5)
        return {"type": "play_card", "card": max(round_state["hand"])}
"""
#: Short enough that Redis hands a dead node's match to the other node within the test, well
#: above the length of a match here (a live node's match is never handed out twice).
VISIBILITY_TIMEOUT_S = 45
HOST = socket.gethostname()

SEED_LADDER = """
import hashlib
from arena.accounts.models import User
from arena.ratings.services import rating_ensure
from arena.submissions.models import Agent, Submission
from games.core import get_game_spec

spec = get_game_spec({game!r})
source = {source!r}
for name in {players!r}:
    owner = User.objects.create_user(name, password=name + "-pass-123")
    agent = Agent.objects.create(owner=owner, game=spec.id, name="starter")
    submission = Submission.objects.create(
        agent=agent, version=1, source=source, game_version=spec.version,
        sha256=hashlib.sha256(source.encode()).hexdigest(),
        status=Submission.Status.ACCEPTED, active=True,
    )
    rating_ensure(submission=submission)
"""

LADDER_STATE = """
import json
from collections import Counter
from django.db import connection, transaction
from arena.matches.models import Match
from arena.ratings.models import Rating, RatingChange

# One snapshot for every read: a match that finishes (and is rated, in the same transaction)
# between two of these queries would otherwise look rated other than once.
with transaction.atomic():
    if connection.vendor == "postgresql":
        connection.cursor().execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    ranked = Match.objects.filter(kind="ranked")
    changes = Counter(RatingChange.objects.values_list("match_id", flat=True))
    bad_chains = []
    for rating in Rating.objects.all():
        chain = list(rating.changes.order_by("id"))
        previous = 1200.0
        for change in chain:
            if abs(change.before - previous) > 1e-9:
                bad_chains.append(rating.pk)
            previous = change.after
        counted = rating.wins + rating.losses + rating.draws
        games = {{rating.games, counted}}
        if abs(previous - rating.rating) > 1e-9 or games != {{len(chain)}}:
            bad_chains.append(rating.pk)
    print("RESULT=" + json.dumps({{
        "statuses": dict(Counter(ranked.values_list("status", flat=True))),
        "finished": ranked.filter(status="finished").count(),
        "finished_unrated": ranked.filter(status="finished", rated=False).count(),
        "not_rated_once": sorted(
            m for m in ranked.filter(status="finished").values_list("id", flat=True)
            if changes[m] != 2
        ),
        "rated_unfinished": sorted(m for m in changes if m not in set(
            ranked.filter(status="finished").values_list("id", flat=True))),
        "bad_chains": sorted(set(bad_chains)),
        "match": {{
            m.pk: {{"status": m.status, "attempts": m.attempts, "rated": m.rated}}
            for m in ranked.filter(pk__in={watch!r})
        }},
    }}))
"""


def _result(out: str) -> Any:
    line = [x for x in out.splitlines() if x.startswith("RESULT=")][-1]
    return json.loads(line.removeprefix("RESULT="))


def _group(pgid: int) -> set[int]:
    out = subprocess.run(["ps", "-eo", "pid=,pgid="], capture_output=True, text=True)
    pairs = [line.split() for line in out.stdout.splitlines() if line.strip()]
    return {int(pid) for pid, group in pairs if int(group) == pgid}


def _containers() -> list[dict[str, Any]]:
    from sandbox.engine import docker_client

    return list(docker_client().api.containers(all=True, filters={"label": "arena.sandbox"}))


def _owner_pid(container: dict[str, Any]) -> int | None:
    host, _, pid = str((container.get("Labels") or {}).get("arena.sandbox.owner", "")).partition(
        ":"
    )
    return int(pid) if host == HOST and pid.isdigit() else None


def _wait(check: Callable[[], Any], timeout_s: float, what: str, every_s: float = 1.0) -> Any:
    return wait_for(check, timeout_s=timeout_s, what=what, every_s=every_s)


class Node:
    """One worker node: ``manage.py arena_worker -n <name>@%h`` in a process group of its own."""

    def __init__(self, name: str, env: dict[str, str], logs: Path) -> None:
        self.name = f"{name}@{HOST}"
        self.log_path = logs / f"{name}.log"
        self._log = self.log_path.open("wb")
        self.proc = start_process(
            [
                sys.executable,
                str(ROOT / "manage.py"),
                "arena_worker",
                "-n",
                f"{name}@%h",
                "--concurrency",
                "1",
            ],
            env,
            self._log,
            new_session=True,
        )
        self.pids: set[int] = {self.proc.pid}  # every process the node ever had
        self.containers: set[str] = set()  # every sandbox container its processes created

    def watch(self, containers: list[dict[str, Any]]) -> None:
        """Note the node's processes and the sandbox containers they own right now."""
        self.pids |= _group(self.proc.pid)
        self.containers |= {c["Id"] for c in containers if _owner_pid(c) in self.pids}

    def matches_done(self) -> int:
        text = self.log_path.read_text(errors="replace")
        return sum(
            1 for line in text.splitlines() if "match_run_task[" in line and "succeeded" in line
        )

    def active_match(self, env: dict[str, str]) -> int | None:
        """The match this node is playing right now (Celery's remote control), if any."""
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "arena.celery_app",
                "inspect",
                "active",
                "-d",
                self.name,
                "--json",
                "--timeout",
                "3",
            ],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        for line in done.stdout.splitlines():
            if line.startswith("{"):
                for task in json.loads(line).get(self.name) or []:
                    if task.get("name", "").endswith("match_run_task") and task.get("args"):
                        return int(task["args"][0])
        return None

    def stop(self, sig: signal.Signals = signal.SIGTERM, timeout_s: float = 30) -> None:
        with suppress(ProcessLookupError):
            if sig == signal.SIGKILL:
                os.killpg(self.proc.pid, sig)  # the whole node: main process and pool
            else:
                self.proc.send_signal(sig)
        with suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=timeout_s)
        with suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        self._log.close()


def seed_ladder(env: dict[str, str], source: str, game: str = GAME) -> None:
    """Migrate the platform's database and put ``PLAYERS`` on the ladder of ``game``, each with
    an agent of ``source``."""
    manage(env, "migrate", "--verbosity", "0")
    spec = get_game_spec(game)
    manage(env, "shell", "-c", SEED_LADDER.format(game=spec.id, players=PLAYERS, source=source))


@pytest.fixture
def cluster_env() -> Iterator[dict[str, str]]:
    from tests.sandbox.conftest import require_docker

    require_docker()
    with redis_and_postgres() as (redis_url, db_url):
        var = Path(tempfile.mkdtemp(prefix="arena-nodes-"))
        yield platform_env(
            var,
            db_url,
            REDIS_URL=redis_url,
            ARENA_SANDBOX_BACKEND="docker",
            ARENA_MATCHMAKING_INTERVAL_S="1",
            ARENA_BROKER_VISIBILITY_TIMEOUT_S=str(VISIBILITY_TIMEOUT_S),
        )
        if not os.environ.get("ARENA_E2E_KEEP_LOGS"):
            shutil.rmtree(var, ignore_errors=True)


def test_two_worker_nodes_share_a_ladder_and_finish_a_killed_nodes_match(
    cluster_env: dict[str, str],
) -> None:
    env = cluster_env
    var = Path(env["ARENA_VAR_DIR"])
    logs = var / "logs"
    logs.mkdir()
    seed_ladder(env, AGENT)
    with ExitStack() as cleanup:
        a = Node("a", env, logs)
        b = Node("b", env, logs)
        beat_log = (logs / "beat.log").open("wb")
        beat = start_process(
            celery_command("beat", "-s", str(var / "beat-schedule"), "--loglevel", "INFO"),
            env,
            beat_log,
            new_session=True,
        )

        def teardown() -> None:
            for proc in (beat,):
                with suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
            beat_log.close()
            for node in (a, b):
                if node.proc.poll() is None:
                    node.stop(signal.SIGKILL)
            # Our own containers only: other tests on this engine carry the same label.
            from sandbox.engine import docker_client

            ours = a.pids | b.pids
            for container in _containers():
                if _owner_pid(container) in ours:
                    with suppress(Exception):
                        docker_client().api.remove_container(container["Id"], force=True)
            if os.environ.get("ARENA_E2E_KEEP_LOGS"):
                print(f"worker node logs kept in {logs}")

        cleanup.callback(teardown)

        def both_played() -> bool:
            containers = _containers()
            a.watch(containers)
            b.watch(containers)
            return a.matches_done() >= 1 and b.matches_done() >= 1

        _wait(both_played, 180, "matches on both nodes")

        # Kill node a (main process and pool, like a host going down) in the middle of a match.
        def playing_on_a() -> int | None:
            a.watch(_containers())
            return a.active_match(env)

        killed_match = _wait(playing_on_a, 120, "a match in play on node a", every_s=0.2)
        a.watch(_containers())
        a.stop(signal.SIGKILL)
        done_by_b = b.matches_done()
        at_kill = _result(manage(env, "shell", "-c", LADDER_STATE.format(watch=[killed_match])))
        assert at_kill["match"][str(killed_match)]["status"] == "running", at_kill["match"]

        def state() -> dict[str, Any]:
            b.watch(_containers())
            return _result(manage(env, "shell", "-c", LADDER_STATE.format(watch=[killed_match])))

        # Redis hands node a's unacknowledged match to b once the visibility timeout is over.
        _wait(
            lambda: state()["match"][str(killed_match)]["status"] == "finished",
            300,
            f"match {killed_match} of the killed node to be finished by the other",
            every_s=3,
        )
        assert b.proc.poll() is None
        assert b.matches_done() > done_by_b

        # Settle: no new pairings, then every ranked match ends.
        os.killpg(beat.pid, signal.SIGTERM)
        beat.wait(timeout=30)
        final = _wait(
            lambda: (s := state())["statuses"].keys() <= {"finished", "error"} and s,
            240,
            "every ranked match to end",
            every_s=3,
        )

    print(
        "two-node run: "
        + json.dumps(
            {
                "matches_by_node": {"a": a.matches_done(), "b": b.matches_done()},
                "containers_by_node": {"a": len(a.containers), "b": len(b.containers)},
                "killed_match": final["match"][str(killed_match)],
                "statuses": final["statuses"],
            }
        )
    )
    # Spread over both, each node with its own sandbox containers.
    assert a.matches_done() >= 1 and b.matches_done() >= 1
    assert a.containers and b.containers and not (a.containers & b.containers)
    # The killed node's match was played again (by b) and finished, rated once.
    assert final["match"][str(killed_match)]["attempts"] >= 2, final["match"]
    assert final["match"][str(killed_match)]["rated"] is True
    # Every finished ranked match rated exactly once; ratings consistent with their history.
    assert final["statuses"].get("finished", 0) >= 3, final
    assert final["finished_unrated"] == 0, final
    assert final["not_rated_once"] == [], final
    assert final["rated_unfinished"] == [], final
    assert final["bad_chains"] == [], final

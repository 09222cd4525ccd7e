"""Warm shutdown and rolling upgrades (docs/operations.md, "Upgrading without losing a match").

A worker node that receives SIGTERM in the middle of a match finishes it (unharmed: played
once, rated once, no seat charged a forfeit), takes no new work, says it is stopping in its
heartbeat, and exits; the matches it did not take wait in the queue for the next node. Then two
nodes under load are restarted one after the other, as a rollout does: every ranked match ends
finished, rated once, played in one attempt, with no forfeit.

Real parts: Redis, PostgreSQL, two ``manage.py arena_worker`` nodes, a beat, the docker sandbox.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

import pytest

from devtools.parts import ROOT, manage
from tests.e2e.test_worker_nodes import (
    CLUSTER_MARKS,
    LADDER_STATE,
    Node,
    _containers,
    _result,
    _wait,
    cluster_env,  # noqa: F401 - the fixture, shared with the two-node test
    seed_ladder,
)

pytestmark = CLUSTER_MARKS

#: A player slow enough to be caught mid-match (about 0.4 s a turn), with nothing slow at its
#: start: the 10 s start budget (container, load, ``on_match_start``) must hold even on a
#: loaded test machine, or seats forfeit whatever the restarts do.
AGENT = """
import time


class Agent:
    GAME = "simple-card"

    def on_turn(self, round_state):
        time.sleep(0.4)
        return {"type": "play_card", "card": max(round_state["hand"])}
"""

#: Every seat of every finished ranked match, and the heartbeats, after the run.
SEATS = """
import json
from arena.matches.models import Match, Participant
from arena.ops.models import WorkerHeartbeat
print("RESULT=" + json.dumps({
    "forfeits": list(
        Participant.objects.filter(match__kind="ranked").exclude(reason__in=["", "normal"])
        .values_list("match_id", "reason")
    ),
    "attempts": sorted(set(Match.objects.filter(kind="ranked", status="finished")
        .values_list("attempts", flat=True))),
    "queued": Match.objects.filter(kind="ranked", status="queued").count(),
    "heartbeats": {w.hostname: w.stopping for w in WorkerHeartbeat.objects.all()},
}))
"""


class Beat:
    def __init__(self, env: dict[str, str], var: Path) -> None:
        self.log = (var / "logs" / "beat.log").open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "arena.celery_app", "beat",
             "-s", str(var / "beat-schedule"), "--loglevel", "INFO"],
            env=env, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    def stop(self) -> None:
        with suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGTERM)
        with suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=30)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        self.log.close()


@pytest.fixture
def ladder(cluster_env: dict[str, str]) -> Iterator[tuple[dict[str, str], Path, list[Node]]]:  # noqa: F811
    env = cluster_env
    var = Path(env["ARENA_VAR_DIR"])
    (var / "logs").mkdir()
    seed_ladder(env, AGENT)
    nodes: list[Node] = []
    with ExitStack() as cleanup:

        def teardown() -> None:
            from sandbox.engine import docker_client

            ours: set[int] = set()
            for node in nodes:
                if node.proc.poll() is None:
                    node.stop(signal.SIGKILL)
                ours |= node.pids
            for container in _containers():
                owner = str((container.get("Labels") or {}).get("arena.sandbox.owner", ""))
                pid = owner.partition(":")[2]
                if pid.isdigit() and int(pid) in ours:
                    with suppress(Exception):
                        docker_client().api.remove_container(container["Id"], force=True)

        cleanup.callback(teardown)
        yield env, var, nodes


def _state(env: dict[str, str], watch: list[int]) -> dict[str, Any]:
    return _result(manage(env, "shell", "-c", LADDER_STATE.format(watch=watch)))


def _seats(env: dict[str, str]) -> dict[str, Any]:
    return _result(manage(env, "shell", "-c", SEATS))


def _settle(env: dict[str, str], node: Node, watch: list[int]) -> dict[str, Any]:
    """With beat stopped and ``node`` running, wait until every ranked match has ended."""
    return _wait(
        lambda: (s := _state(env, watch))["statuses"].keys() <= {"finished", "error"} and s,
        300,
        "every ranked match to end",
        every_s=3,
    )


def test_sigterm_mid_match_finishes_it_unharmed_then_exits(
    ladder: tuple[dict[str, str], Path, list[Node]],
) -> None:
    env, var, nodes = ladder
    a = Node("a", env, var / "logs")
    nodes.append(a)
    beat = Beat(env, var)
    try:
        match_id = _wait(lambda: a.active_match(env), 180, "a match in play on node a", 0.3)
        a.watch(_containers())
        a.proc.send_signal(signal.SIGTERM)  # the main process only, as `docker stop` does
        # Warm shutdown: the running match is finished first; the node then exits by itself.
        _wait(lambda: a.proc.poll() is not None, 180, "node a to exit after SIGTERM", 0.5)
        a.stop()  # closes its log (it has exited)
        assert a.proc.returncode == 0, a.log_path.read_text(errors="replace")[-3000:]
        at_exit = _state(env, [match_id])
        assert at_exit["match"][str(match_id)] == {
            "status": "finished",
            "attempts": 1,
            "rated": True,
        }, at_exit
        seats = _seats(env)
        assert seats["forfeits"] == [], seats
        assert a.name not in seats["heartbeats"], seats  # a stopped node leaves the list
        # The matches beat queued meanwhile were not lost: the next node plays them.
        b = Node("b", env, var / "logs")
        nodes.append(b)
        _wait(lambda: b.matches_done() >= 1, 180, "node b to play the waiting matches")
    finally:
        beat.stop()
    final = _settle(env, b, [match_id])
    seats = _seats(env)
    assert final["finished_unrated"] == 0 and final["not_rated_once"] == [], final
    assert final["bad_chains"] == [] and final["rated_unfinished"] == [], final
    assert set(final["statuses"]) == {"finished"}, final
    assert seats["forfeits"] == [] and seats["attempts"] == [1], seats


def test_a_rolling_restart_of_two_nodes_under_load_loses_no_match(
    ladder: tuple[dict[str, str], Path, list[Node]],
) -> None:
    env, var, nodes = ladder
    logs = var / "logs"
    a, b = Node("a", env, logs), Node("b", env, logs)
    nodes += [a, b]
    beat = Beat(env, var)
    try:
        _wait(lambda: a.matches_done() >= 1 and b.matches_done() >= 1, 240, "both nodes playing")
        live = b
        for old, new_name in ((a, "a2"), (b, "b2")):
            _wait(lambda o=old: o.active_match(env), 120, f"a match in play on {old.name}", 0.3)
            old.proc.send_signal(signal.SIGTERM)
            _wait(lambda o=old: o.proc.poll() is not None, 180, f"{old.name} to exit", 0.5)
            old.stop()
            assert old.proc.returncode == 0
            new = Node(new_name, env, logs)
            nodes.append(new)
            _wait(lambda n=new: n.matches_done() >= 1, 240, f"{new.name} to play")
            live = new
    finally:
        beat.stop()
    final = _settle(env, live, [])
    seats = _seats(env)
    print("rolling restart: " + json.dumps({"statuses": final["statuses"], **seats}))
    assert set(final["statuses"]) == {"finished"}, final
    assert final["finished"] >= 4, final
    assert final["finished_unrated"] == 0 and final["not_rated_once"] == [], final
    assert final["bad_chains"] == [] and final["rated_unfinished"] == [], final
    # Nothing was lost and played again, and no agent paid for the restarts.
    assert seats["forfeits"] == [] and seats["attempts"] == [1], seats

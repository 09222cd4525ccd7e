"""Health, readiness and metrics against the platform as it runs: a real Celery worker (with
beat) on Redis, PostgreSQL, the web server, and the sandbox the machine offers (docker with the
sandbox image, else the process backend)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from games.core import get_game_spec
from tests.conftest import wait_for
from tests.e2e.conftest import Stack, http_get
from tests.e2e.test_worker_nodes import SEED_LADDER

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

SEED = SEED_LADDER.format(
    game="simple-card", players=("mo", "ng"), source=get_game_spec("simple-card").starter_source()
)

HEARTBEATS = """
import json
from arena.ops.models import WorkerHeartbeat
print("RESULT=" + json.dumps([
    {"hostname": w.hostname, "queues": w.queues, "stopping": w.stopping}
    for w in WorkerHeartbeat.objects.all()
]))
"""


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    status, body, _ = http_get(url, timeout_s=10, headers=headers)
    return status, body.decode()


def wait_until(check: Callable[[], Any], what: str, timeout_s: float = 180.0) -> Any:
    return wait_for(check, timeout_s=timeout_s, what=what, every_s=0.5)


def sample(text: str, name: str, **labels: str) -> float:
    total = 0.0
    for line in text.splitlines():
        if line.startswith((name + "{", name + " ")) and all(
            f'{k}="{v}"' in line for k, v in labels.items()
        ):
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_readyz_turns_ready_with_the_worker_and_metrics_count_a_real_match(stack: Stack) -> None:
    assert get(stack.url + "/healthz") == (200, json.dumps({"status": "ok"}))
    # The worker's heartbeat covers every queue: ready, and the public learns nothing more.
    status, body = wait_until(
        lambda: (answer := get(stack.url + "/readyz"))[0] == 200 and answer,
        "the worker's heartbeat to make /readyz ready",
    )
    assert json.loads(body) == {"status": "ready"}
    beats = json.loads(stack.manage("shell", "-c", HEARTBEATS).split("RESULT=", 1)[1])
    assert len(beats) == 1 and not beats[0]["stopping"]
    roles = {q.rsplit(".", 1)[-1] for q in beats[0]["queues"]}
    assert {"matches", "training", "validation", "maintenance"} <= roles

    _, before = get(stack.url + "/metrics")
    # The house bots may already be playing each other: what follows counts what grew since.

    def grew(text: str, name: str, **labels: str) -> bool:
        return sample(text, name, **labels) > sample(before, name, **labels)

    stack.manage("shell", "-c", SEED)
    # Matchmaking pairs the two (every second here) and the worker plays ranked matches. A house
    # bots' match paired before ``before`` may be the first to finish: wait for all three.
    text = wait_until(
        lambda: (t := get(stack.url + "/metrics")[1])
        and grew(t, "arena_matches_finished_total", kind="ranked", game="simple-card")
        and grew(t, "arena_matches_started_total", kind="ranked")
        and grew(t, "arena_matchmaking_pairs_total")
        and t,
        "a pairing, a ranked match started and one finished, counted since the first scrape",
    )
    assert grew(text, "arena_matchmaking_pass_seconds_count")
    assert grew(text, "arena_call_charged_seconds_count", game="simple-card")
    assert grew(text, "arena_match_duration_seconds_count", kind="ranked")
    assert sample(text, "arena_part_up", part="broker") == 1.0
    assert sample(text, "arena_workers_live", queue="matches") == 1.0
    assert 'arena_queue_depth{queue="matches"}' in text

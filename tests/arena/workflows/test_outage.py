"""The database or the broker away, one piece at a time: a match task that cannot reach the
database keeps its message (waits, then runs again); the event writer says so in one line per
match; the sweeper reads Redis to find a queued match whose message was lost in seconds (and
leaves one waiting its turn alone) and drops the unacknowledged message of a finished match.
The whole platform across real outages: tests/e2e/test_outage.py, test_redis_outage.py."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
import redis
from arena.matches.eventlog import EventWriter
from arena.matches.models import Match, MatchEvent
from arena.submissions.services import house_submission_ensure
from arena.workflows import lifecycle
from arena.workflows.dispatch import MATCH_RUN_TASK, match_schedule
from arena.workflows.tasks import match_run_task
from celery.exceptions import Retry
from django.db import OperationalError
from django.utils import timezone

from devtools.parts import redis_available, redis_server
from tests.conftest import require_part

pytestmark = pytest.mark.django_db(transaction=False)

GONE = 'connection to server at "127.0.0.1", port 5432 failed: Connection refused'


@pytest.fixture
def queued_match(committed: Any) -> Callable[..., Match]:
    """A training match of two house bots, stored as queued and never sent, with ``fields``."""

    def make(**fields: Any) -> Match:
        house = house_submission_ensure(game="simple-card", bot="highest")
        match = match_schedule(kind="training", submissions=[house, house])  # not sent
        Match.objects.filter(pk=match.pk).update(**fields)
        match.refresh_from_db()
        return match

    return make


# --- The task keeps its message while the database is away ----------------------------------------


def test_a_task_that_cannot_reach_the_database_runs_again_instead_of_failing(
    queued_match: Callable[..., Match], monkeypatch: Any
) -> None:
    match = queued_match()
    waits: list[float] = []
    monkeypatch.setattr(
        "arena.workflows.tasks.database_wait", lambda *, timeout_s: waits.append(timeout_s) or True
    )

    def unreachable(**_: Any) -> Any:
        raise OperationalError(GONE)

    monkeypatch.setattr("arena.workflows.tasks.match_run", unreachable)
    # Retried at once once the database answers (its message stays until the new one is sent),
    # not failed (acknowledged and lost).
    with pytest.raises(Retry) as retried:
        match_run_task.apply(args=[match.pk])
    assert retried.value.when == 0
    assert len(waits) == 1
    match.refresh_from_db()
    assert match.status == "queued" and match.attempts == 0 and match.error == ""


def test_a_task_whose_match_fails_for_another_reason_still_fails(
    queued_match: Callable[..., Match], monkeypatch: Any
) -> None:
    match = queued_match()

    def broken(**_: Any) -> Any:
        raise ValueError("a bug")

    monkeypatch.setattr("arena.workflows.tasks.match_run", broken)
    with pytest.raises(ValueError):
        match_run_task.apply(args=[match.pk])


# --- One line per match while the log cannot be stored -------------------------------------------


def test_the_writer_says_once_that_the_database_is_away(
    queued_match: Callable[..., Match], monkeypatch: Any, caplog: Any
) -> None:
    match = queued_match()
    writer = EventWriter(match.pk)

    def refused(*_: Any, **__: Any) -> Any:
        raise OperationalError(GONE)

    monkeypatch.setattr(MatchEvent.objects, "bulk_create", refused)
    caplog.set_level(logging.INFO)
    for seq in range(200):
        writer({"seq": seq, "seat": seq % 2, "method": "on_turn", "reply": {"card": seq}})
        if seq % 10 == 9:
            writer.flush()
    writer.flush()
    lines = [r for r in caplog.records if "arena.matches.eventlog" in r.name]
    assert len(lines) == 1, [r.getMessage() for r in lines][:5]
    assert lines[0].exc_info is None and "cannot be reached" in lines[0].getMessage()
    assert str(match.pk) in lines[0].getMessage()
    assert writer.lost_to_outage == 200


def test_periodic_passes_say_once_that_the_database_is_away(monkeypatch: Any, caplog: Any) -> None:
    from arena.tournaments.tasks import tournaments_tick_task
    from arena.workflows.tasks import matches_sweep_task, matchmaking_task

    def unreachable(*_: Any, **__: Any) -> Any:
        raise OperationalError(GONE)

    monkeypatch.setattr("arena.workflows.tasks.matchmaking_run", unreachable)
    monkeypatch.setattr("arena.workflows.tasks.matches_sweep", unreachable)
    monkeypatch.setattr("arena.tournaments.tasks.tournaments_tick", unreachable)
    caplog.set_level(logging.INFO)
    for _ in range(5):  # beat keeps sending them while the database is away
        assert matchmaking_task() == 0
        assert matches_sweep_task() == {}
        assert tournaments_tick_task() == {}
    lines = [r for r in caplog.records if "cannot be reached" in r.getMessage()]
    assert [r.getMessage().split(" skipped")[0] for r in lines] == [
        "matchmaking",
        "sweeper",
        "tournaments tick",
    ]
    assert all(r.exc_info is None for r in caplog.records)


# --- The sweeper reads Redis --------------------------------------------------------------------


@pytest.fixture
def redis_broker(settings: Any) -> Iterator[redis.Redis]:
    """Celery's app on a real redis-server (not eager) for the sweeper's reads; what it sends is
    caught instead of sent."""
    require_part(redis_available(), "redis-server (apt-get install redis-server)")
    from arena.celery_app import app

    with redis_server() as url:
        # With the CELERY_ namespace, the keys are the prefixed upper-case ones.
        keys = ("CELERY_BROKER_URL", "CELERY_BROKER_TRANSPORT", "CELERY_TASK_ALWAYS_EAGER")
        saved = {k: app.conf.get(k) for k in keys}
        app.conf.update(
            CELERY_BROKER_URL=url,
            CELERY_BROKER_TRANSPORT="arena.celery_redis:Transport",
            CELERY_TASK_ALWAYS_EAGER=False,
        )
        try:
            yield redis.Redis.from_url(url)
        finally:
            app.conf.update(saved)


def _message(client: redis.Redis, match_id: int, queue: str) -> dict[str, Any]:
    """A real match task message as kombu stores it (sent, then taken off its queue)."""
    from arena.celery_app import app

    with app.connection_for_write() as conn:
        producer = conn.Producer()
        message = app.amqp.create_task_message(
            f"task-{match_id}", MATCH_RUN_TASK, (match_id,), {}, ignore_result=True
        )
        app.amqp.send_task_message(producer, MATCH_RUN_TASK, message, queue=queue)
    raw = client.rpop(queue)
    assert raw is not None
    return dict(json.loads(raw))


def _hold(client: redis.Redis, message: dict[str, Any], queue: str, at: float) -> str:
    """Put ``message`` among the unacknowledged ones, taken at ``at`` (as kombu's QoS does)."""
    tag = f"tag-{time.monotonic_ns()}"
    client.zadd("unacked_index", {tag: at})
    client.hset("unacked", tag, json.dumps([message, queue, queue]))
    return tag


def test_the_sweeper_finds_a_lost_message_in_seconds_and_leaves_waiting_ones_alone(
    queued_match: Callable[..., Match],
    redis_broker: redis.Redis,
    settings: Any,
    monkeypatch: Any,
) -> None:
    client = redis_broker
    queue = settings.ARENA_QUEUES["training"]
    sent: list[int] = []
    monkeypatch.setattr(lifecycle, "match_enqueue_on_commit", sent.append)
    a_minute_ago = timezone.now() - timedelta(seconds=settings.ARENA_MATCH_LOST_GRACE_S + 30)
    waiting = queued_match(enqueued=a_minute_ago)  # in its queue, behind others
    lost = queued_match(enqueued=a_minute_ago)  # in no queue, with no worker
    taken_now = queued_match(enqueued=a_minute_ago)  # a worker took it a moment ago
    taken_long_ago = queued_match(enqueued=a_minute_ago)  # its worker dropped it
    just_sent = queued_match(enqueued=timezone.now())  # on its way, not yet in Redis
    finished = queued_match(status="finished", enqueued=a_minute_ago)  # its ack was lost

    messages = {m.pk: _message(client, m.pk, queue) for m in (waiting, taken_now, taken_long_ago)}
    messages[finished.pk] = _message(client, finished.pk, queue)
    client.lpush(queue, json.dumps(messages[waiting.pk]))
    _hold(client, messages[taken_now.pk], queue, time.time() - 1)
    stale = _hold(client, messages[taken_long_ago.pk], queue, time.time() - 600)
    done = _hold(client, messages[finished.pk], queue, time.time() - 600)
    # Another deployment's message on the same Redis is never touched.
    other = _hold(client, messages[finished.pk], "other.training", 0)

    counts = lifecycle.matches_sweep()
    assert sorted(sent) == sorted([lost.pk, taken_long_ago.pk]) and just_sent.pk not in sent
    assert counts["resent"] == 2 and counts["dropped"] == 2
    tags = {t.decode() for t in client.hkeys("unacked")}
    assert stale not in tags and done not in tags and other in tags
    assert client.llen(queue) == 1  # the waiting message stays where it was


def test_without_a_readable_broker_only_the_long_bound_applies(
    queued_match: Callable[..., Match], settings: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(lifecycle, "broker_view", lambda **_: None)
    sent: list[int] = []
    monkeypatch.setattr(lifecycle, "match_enqueue_on_commit", sent.append)
    recent = queued_match(enqueued=timezone.now() - timedelta(seconds=120))
    old = queued_match(
        enqueued=timezone.now() - timedelta(seconds=settings.ARENA_MATCH_QUEUED_MAX_S + 1)
    )
    lifecycle.matches_sweep()
    assert sent == [old.pk] and recent.pk not in sent


def test_a_running_match_cut_off_by_a_database_restart_says_so(
    queued_match: Callable[..., Match], monkeypatch: Any
) -> None:
    match = queued_match(status="running", attempts=1, started=timezone.now() - timedelta(days=1))
    monkeypatch.setattr(lifecycle, "_database_restarted_since", lambda when: True)
    monkeypatch.setattr(lifecycle, "match_enqueue_on_commit", lambda match_id: None)
    assert lifecycle.matches_sweep()["requeued"] == 1
    match.refresh_from_db()
    assert match.status == "queued"
    assert "could not reach the database" in match.error and "queued again" in match.error
    assert "worker stopped" not in match.error


def test_a_task_sent_again_is_not_orphaned_but_a_killed_workers_is(
    queued_match: Callable[..., Match],
    redis_broker: redis.Redis,
    settings: Any,
    monkeypatch: Any,
) -> None:
    client = redis_broker
    queue = settings.ARENA_QUEUES["training"]
    monkeypatch.setattr(lifecycle, "live_task_ids", lambda: {"another-task"})  # workers answer
    monkeypatch.setattr(lifecycle, "match_enqueue_on_commit", lambda match_id: None)
    # Started well past the orphan grace, well within its deadline.
    long_ago = timezone.now() - timedelta(seconds=settings.ARENA_MATCH_ORPHAN_GRACE_S + 60)
    # Its task could not reach the database and was sent again: the message waits its turn.
    retrying = queued_match(status="running", attempts=1, started=long_ago)
    # Its worker was killed: its message stays unacknowledged until the visibility timeout.
    killed = queued_match(status="running", attempts=1, started=long_ago)
    for match in (retrying, killed):
        Match.objects.filter(pk=match.pk).update(task_id=f"task-{match.pk}")
    again = _message(client, retrying.pk, queue)
    taken = _message(client, killed.pk, queue)
    client.lpush(queue, json.dumps(again))
    _hold(client, taken, queue, long_ago.timestamp())

    assert lifecycle.matches_sweep()["requeued"] == 1
    retrying.refresh_from_db()
    killed.refresh_from_db()
    assert retrying.status == "running"
    assert killed.status == "queued" and "worker stopped" in killed.error


# --- A worker comes back soon after its broker ----------------------------------------------


def test_a_worker_tries_its_broker_again_every_two_seconds_and_never_gives_up(
    settings: Any,
) -> None:
    from arena.celery_app import Consumer, app

    assert app.conf.worker_consumer == "arena.celery_app:Consumer"
    asked: dict[str, Any] = {}

    class Connection:
        def ensure_connection(self, *args: Any, **kwargs: Any) -> Connection:
            asked.update(args=args, **kwargs)
            return self

    consumer = object.__new__(Consumer)  # only what ``ensure_connected`` reads
    consumer.app = app
    consumer.first_connection_attempt = False
    consumer.ensure_connected(Connection())
    # kombu's own back-off grows to 30 s between attempts: a worker came back that late.
    assert asked["interval_max"] == settings.ARENA_BROKER_RECONNECT_MAX_S == 2
    assert asked["interval_start"] <= 0.5 and asked["interval_step"] <= 0.5
    assert asked["args"][1] is None  # retries: as long as the broker is away


# --- The heartbeat lists what runs now -----------------------------------------------------------


def test_the_heartbeat_lists_only_matches_that_run_now_under_its_tasks(
    queued_match: Callable[..., Match],
) -> None:
    from types import SimpleNamespace

    from arena.ops.heartbeat import Heartbeat
    from arena.ops.models import WorkerHeartbeat

    running = queued_match(status="running", attempts=1, task_id="t-running")
    # Its task ended while the broker was away; Celery's bookkeeping still holds its request.
    finished = queued_match(status="finished", attempts=1, task_id="t-finished")
    # Another worker took it over (this one's task is stale).
    taken_over = queued_match(status="running", attempts=2, task_id="t-new")
    requests = [
        SimpleNamespace(name=MATCH_RUN_TASK, id=task, args=[match.pk], kwargs={})
        for task, match in (("t-running", running), ("t-finished", finished), ("t-old", taken_over))
    ]
    beat = Heartbeat(hostname="node@test", queues=lambda: ["q"], active=lambda: requests,
                     concurrency=2, period_s=60)  # fmt: skip
    assert beat.beat()
    assert WorkerHeartbeat.objects.get(hostname="node@test").running_matches == [running.pk]


def test_a_match_whose_log_lost_entries_to_an_outage_is_played_again(
    queued_match: Callable[..., Match], monkeypatch: Any
) -> None:
    from arena.matches.services import RunOutcome
    from arena.workflows.matches import match_run

    match = queued_match()

    def refused(*_: Any, **__: Any) -> Any:
        raise OperationalError(GONE)

    # The database is away while the match is played, back when it is recorded.
    monkeypatch.setattr(MatchEvent.objects, "bulk_create", refused)
    assert match_run(match_id=match.pk) is RunOutcome.RETRY
    match.refresh_from_db()
    assert match.status == "queued" and match.attempts == 1 and not match.rated
    assert "log has a gap" in match.error

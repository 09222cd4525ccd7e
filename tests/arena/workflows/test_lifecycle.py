"""Every match ends: hostile values cannot break storing, overdue matches are swept, the attempt
cap holds across redeliveries, a validation hit by a platform error says so."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

import pytest
from arena.matches.eventlog import EventWriter, entry_safe, json_safe
from arena.matches.logstore import match_log_entries
from arena.matches.models import Match, MatchEvent
from arena.ratings.models import Rating
from arena.submissions.models import Submission
from arena.submissions.services import house_submission_ensure
from arena.workflows.dispatch import match_schedule
from arena.workflows.lifecycle import matches_sweep
from arena.workflows.matches import match_run
from arena.workflows.submissions import submission_activate, submission_upload
from arena.workflows.tasks import match_run_task
from django.utils import timezone

from games.core import CallResult, InProcessAgentHandle, PlatformError, house_bot_class

pytestmark = pytest.mark.django_db(transaction=False)


def _deep(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


FORGED = '{"id": 7, "ok": true, "result": {"type": "play", "card": 13}, "elapsed_ms": 0}\n'

#: What a reply that slipped past the controller could carry, by name.
HOSTILE: dict[str, dict[str, Any]] = {
    "deep_nesting": {"result": {"type": "play", "card": _deep(950)}},
    "infinity": {"result": {"type": float("inf"), "card": float("nan"), "n": 10**5000}},
    "huge_string": {"result": {"type": "x" * 3_000_000}, "stdout": "y" * 2_000_000},
    "lone_surrogate": {"result": {"type": "\ud800", "\udfff": 1}, "stdout": "a\ud800b\x00c"},
    "forged_protocol_line": {"result": FORGED, "stdout": FORGED * 50},
    "hostile_error_text": {
        "ok": False,
        "error_message": "boom \x00 \ud800 " + "z" * 100_000,
    },
}


class HostileHandle(InProcessAgentHandle):
    """A house bot whose every reply is replaced by a hostile one."""

    hostile: dict[str, Any] = {}

    def call(self, method: str, payload: Mapping[str, Any], timeout_s: float) -> CallResult:
        real = super().call(method, payload, timeout_s)
        if method != "on_turn":
            return real
        from games.core import CallError

        spec = self.hostile
        if spec.get("ok", True) is False:
            return CallResult(
                ok=False, error=CallError("Boom\x00", spec["error_message"], spec["error_message"])
            )
        return CallResult(ok=True, result=spec["result"], stdout=spec.get("stdout", ""))


def _patch_handles(monkeypatch: Any, hostile: dict[str, Any], guilty_label: str) -> None:
    from arena.matches import sandboxing

    real = sandboxing.make_handle

    def make(submission: Any, **kwargs: Any) -> Any:
        if submission.label != guilty_label:
            return real(submission, **kwargs)
        handle = HostileHandle(
            factory=house_bot_class("simple-card", "random"), display_name=submission.label
        )
        handle.hostile = hostile
        return handle

    monkeypatch.setattr("arena.matches.sandboxing.make_handle", make)


@pytest.mark.parametrize("kind", ["ranked", "training"])
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_reply_forfeits_its_seat_and_the_log_is_stored(
    name: str, kind: str, make_user: Any, committed: Any, starter_source: str, monkeypatch: Any
) -> None:
    user = make_user()
    mine = committed(lambda: submission_upload(owner=user, source=starter_source, name="bot"))
    mine.refresh_from_db()
    assert mine.status == "accepted"
    submission_activate(submission=mine, user=user)
    house = house_submission_ensure(game="simple-card", bot="highest", active=True)
    _patch_handles(monkeypatch, HOSTILE[name], mine.label)
    match = match_schedule(kind=kind, submissions=[mine, house], requested_by=user)
    assert match_run(match_id=match.pk) == "done"
    match.refresh_from_db()
    assert match.status == "finished", match.error
    guilty = match.participants.get(submission=mine)
    other = match.participants.get(submission=house)
    assert (guilty.outcome, other.outcome) == ("loss", "win")
    assert guilty.reason in {"illegal", "crash"}
    entries = match_log_entries(match)
    assert entries
    for entry in entries:  # every stored entry reads back as strict JSON
        json.dumps(entry, allow_nan=False).encode("utf-8")
    if kind == "ranked":
        assert match.rated and Rating.objects.get(submission=mine).games == 1


def test_json_safe_bounds_every_hostile_value() -> None:
    safe = json_safe(
        {
            "deep": _deep(5000),
            "inf": float("-inf"),
            "nan": float("nan"),
            "big": 10**400,
            "text": "a\ud800\x00" + "b" * 200_000,
            "obj": object(),
            ("tuple", "key"): {1, 2},
        }
    )
    text = json.dumps(safe, allow_nan=False)
    text.encode("utf-8")
    assert "\\u0000" not in text
    assert safe["inf"] == "-inf" and safe["nan"] == "nan"
    assert "not stored" in safe["big"] and "cut" in safe["text"]
    assert len(text) < 100_000


def test_an_entry_too_big_is_stored_marked_and_truncated() -> None:
    entry = {"seq": 3, "seat": 1, "method": "on_turn", "reply": ["x" * 60_000] * 20}
    safe = entry_safe(entry)
    assert safe["truncated"] is True and safe["seq"] == 3 and "limit" in safe["note"]


def test_the_writer_never_raises_and_keeps_what_it_can(
    ranked_match: Callable[..., Match], committed: Any
) -> None:
    house = house_submission_ensure(game="simple-card", bot="highest")
    match = match_schedule(kind="training", submissions=[house, house])
    writer = EventWriter(match.pk)
    writer({"seq": 0, "seat": 0, "reply": _deep(2000)})
    writer({"seq": 1, "seat": 1, "reply": float("inf"), "stdout": "\x00\ud800"})
    writer({"seq": 2, "seat": 0, "reply": "ok"})
    writer({"seq": 2, "seat": 0, "reply": "same seq again"})  # a duplicate is ignored
    writer.flush()
    assert list(MatchEvent.objects.filter(match=match).values_list("seq", flat=True)) == [0, 1, 2]


@pytest.fixture
def ranked_match(make_user: Any, committed: Any, starter_source: str) -> Callable[..., Match]:
    """A ranked match of a user's active agent against a house bot, stored but never sent, with
    ``fields`` as a worker (or a lost message) left them."""

    def make(**fields: Any) -> Match:
        user = make_user()
        mine = committed(lambda: submission_upload(owner=user, source=starter_source, name="bot"))
        submission_activate(submission=mine, user=user)
        house = house_submission_ensure(game="simple-card", bot="highest", active=True)
        match = match_schedule(kind="ranked", submissions=[mine, house])  # not committed: not sent
        Match.objects.filter(pk=match.pk).update(**fields)
        match.refresh_from_db()
        return match

    return make


def test_the_sweeper_requeues_a_match_whose_worker_died(
    ranked_match: Callable[..., Match], committed: Any
) -> None:
    long_ago = timezone.now() - timedelta(days=1)
    match = ranked_match(status="running", attempts=1, started=long_ago, task_id="dead-worker")
    counts = committed(matches_sweep)  # re-queued, then played by the eager worker
    assert counts["requeued"] == 1
    match.refresh_from_db()
    assert match.status == "finished" and match.rated and match.attempts == 2
    assert committed(matches_sweep) == {"requeued": 0, "errored": 0, "resent": 0}  # idempotent


def test_the_sweeper_leaves_a_match_within_its_deadline(
    ranked_match: Callable[..., Match], committed: Any
) -> None:
    match = ranked_match(status="running", attempts=1, started=timezone.now(), task_id="alive")
    assert committed(matches_sweep)["requeued"] == 0
    match.refresh_from_db()
    assert match.status == "running"


def test_a_running_match_keeps_its_time_limit_and_the_sweeper_builds_no_game(
    ranked_match: Callable[..., Match], committed: Any, monkeypatch: Any
) -> None:
    from arena.matches import status
    from arena.matches.services import match_begin
    from arena.matches.status import match_time_limits_s

    match = ranked_match()
    begun = match_begin(match_id=match.pk, task_id="alive")
    assert isinstance(begun, Match)
    begun.refresh_from_db()
    assert begun.time_limit_s == match_time_limits_s(begun)[1]

    def no_game(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the sweeper built a game to size a match it had sized before")

    monkeypatch.setattr(status, "create_game", no_game)
    assert committed(matches_sweep)["requeued"] == 0
    begun.refresh_from_db()
    assert begun.status == "running"


def test_the_sweeper_errors_an_overdue_match_without_attempts_left_unrated(
    ranked_match: Callable[..., Match], committed: Any, settings: Any
) -> None:
    cap = settings.ARENA_MATCH_MAX_ATTEMPTS
    match = ranked_match(status="running", attempts=cap, started=timezone.now() - timedelta(days=1))
    assert committed(matches_sweep)["errored"] == 1
    match.refresh_from_db()
    assert match.status == "error" and not match.rated and "unrated" in match.summary
    assert Rating.objects.filter(games__gt=0).count() == 0


def test_the_sweeper_resends_a_queued_match_whose_message_was_lost(
    ranked_match: Callable[..., Match], committed: Any
) -> None:
    match = ranked_match(enqueued=timezone.now() - timedelta(days=1))
    assert committed(matches_sweep)["resent"] == 1
    match.refresh_from_db()
    assert match.status == "finished" and match.attempts == 1


def test_a_redelivery_after_the_last_attempt_died_ends_the_match_unrated(
    ranked_match: Callable[..., Match], settings: Any
) -> None:
    cap = settings.ARENA_MATCH_MAX_ATTEMPTS
    match = ranked_match(status="running", attempts=cap, started=timezone.now(), task_id="the-task")
    match_run_task.apply(args=[match.pk], task_id="the-task")  # the broker redelivers it
    match.refresh_from_db()
    assert match.status == "error" and match.attempts == cap and not match.rated


def test_a_duplicate_message_leaves_a_live_attempt_alone(
    ranked_match: Callable[..., Match],
) -> None:
    match = ranked_match(status="running", attempts=1, started=timezone.now(), task_id="first")
    match_run_task.apply(args=[match.pk], task_id="second")
    match.refresh_from_db()
    assert match.status == "running" and match.attempts == 1


def test_a_validation_hit_by_a_platform_error_says_so_and_is_retried(
    make_user: Any, committed: Any, starter_source: str, monkeypatch: Any, settings: Any
) -> None:
    calls = []

    def flaky(submission: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:  # the first attempt fails at its first seat
            raise PlatformError("the sandbox backend is down")
        return InProcessAgentHandle.from_source(submission.source)

    monkeypatch.setattr("arena.matches.sandboxing.make_handle", flaky)
    user = make_user()
    submission = submission_upload(owner=user, source=starter_source)  # not committed: not sent
    match = (
        Match.objects.filter(kind="validation", participants__submission=submission)
        .distinct()
        .get()
    )
    assert match_run(match_id=match.pk) == "retry"
    submission.refresh_from_db()
    assert submission.status == "pending"
    assert "not your agent's fault" in submission.status_detail
    assert "tried again" in submission.status_detail
    assert match_run(match_id=match.pk) == "done"
    submission.refresh_from_db()
    assert submission.status == Submission.Status.ACCEPTED
    assert Match.objects.get(pk=match.pk).attempts == 2


def test_a_validation_the_platform_never_ran_tells_the_uploader(
    make_user: Any, monkeypatch: Any, starter_source: str, settings: Any
) -> None:
    def broken(submission: Any, **kwargs: Any) -> Any:
        raise PlatformError("the sandbox backend is down")

    monkeypatch.setattr("arena.matches.sandboxing.make_handle", broken)
    submission = submission_upload(owner=make_user(), source=starter_source)
    match = (
        Match.objects.filter(kind="validation", participants__submission=submission)
        .distinct()
        .get()
    )
    for _ in range(settings.ARENA_MATCH_MAX_ATTEMPTS):
        match_run(match_id=match.pk)
    submission.refresh_from_db()
    assert submission.status == "pending" and "not your agent's fault" in submission.status_detail
    assert Match.objects.get(pk=match.pk).status == "error"


def test_runs_on_the_expected_database() -> None:
    # test_lifecycle_postgres.py reruns this file on PostgreSQL and says so through this variable.
    import os

    from django.db import connection

    expected = os.environ.get("ARENA_TEST_DB_VENDOR", connection.vendor)
    assert connection.vendor == expected


def _beat(hostname: str, pid: int, matches: list[int]) -> None:
    from arena.ops.services import heartbeat_record

    heartbeat_record(
        hostname=hostname,
        queues=["q"],
        running_matches=matches,
        concurrency=1,
        pid=pid,
        started=timezone.now(),
    )


def test_a_match_cut_by_a_stop_is_queued_again_at_once_with_its_attempt_given_back(
    ranked_match: Callable[..., Match], monkeypatch: Any, settings: Any
) -> None:
    import socket

    from arena.ops.models import WorkerHeartbeat
    from arena.workflows import lifecycle

    sent: list[int] = []
    monkeypatch.setattr(lifecycle, "match_enqueue", sent.append)
    cap = settings.ARENA_MATCH_MAX_ATTEMPTS
    # Its last attempt, started a moment ago: the sweeper would neither see it overdue nor spare
    # the attempt; the stop hands it back whole.
    cut = ranked_match(status="running", attempts=cap, started=timezone.now(), task_id="t1")
    _beat(f"inst-matches@{socket.gethostname()}", 4242, [cut.pk])  # the stopped worker's row
    pair = [p.submission for p in cut.participants.order_by("seat")]
    elsewhere = match_schedule(kind="ranked", submissions=pair)  # not committed: not sent
    Match.objects.filter(pk=elsewhere.pk).update(
        status="running", attempts=1, started=timezone.now(), task_id="t2"
    )
    _beat("inst-matches@another-host", 4242, [elsewhere.pk])  # a live node elsewhere plays it

    assert lifecycle.matches_requeue_interrupted(worker_pids={4242}) == 1
    cut.refresh_from_db()
    assert (cut.status, cut.attempts, cut.rated) == ("queued", cap - 1, False)
    assert "stopped" in cut.error
    assert list(cut.participants.values_list("outcome", flat=True)) == ["", ""]
    assert sent == [cut.pk]
    elsewhere.refresh_from_db()
    assert elsewhere.status == "running" and elsewhere.attempts == 1
    # The stopped node plays nothing any more; the other node keeps its row.
    assert list(WorkerHeartbeat.objects.values_list("hostname", flat=True)) == [
        "inst-matches@another-host"
    ]
    # Idempotent: nothing left to hand back.
    assert lifecycle.matches_requeue_interrupted(worker_pids={4242}) == 0


def test_a_start_after_a_killed_run_hands_back_what_no_live_node_plays(
    ranked_match: Callable[..., Match], monkeypatch: Any
) -> None:
    from arena.workflows import lifecycle

    sent: list[int] = []
    monkeypatch.setattr(lifecycle, "match_enqueue", sent.append)
    left = ranked_match(status="running", attempts=1, started=timezone.now(), task_id="t1")
    assert lifecycle.matches_requeue_interrupted() == 1  # no heartbeat claims it
    left.refresh_from_db()
    assert (left.status, left.attempts) == ("queued", 0) and sent == [left.pk]

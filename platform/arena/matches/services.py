"""Writes for matches: create, run exactly once, record, training requests, admin actions."""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.accounts.models import User
from arena.errors import Forbidden, NotFound, Refused
from arena.matches.models import Match, MatchEvent, Participant
from arena.submissions.models import Submission
from arena.throttles import hourly_quota_check, user_lock
from games.core import (
    ArenaConfig,
    MatchRecord,
    MatchSettings,
    create_game,
    get_game_spec,
    play_match,
)

logger = logging.getLogger(__name__)

DONE, RETRY = "done", "retry"

#: The only moves ``match_set_status`` allows (running → queued is a retry after a platform error).
ALLOWED_TRANSITIONS = {
    Match.Status.QUEUED: {Match.Status.RUNNING, Match.Status.ERROR},
    Match.Status.RUNNING: {
        Match.Status.RUNNING,
        Match.Status.FINISHED,
        Match.Status.ERROR,
        Match.Status.QUEUED,
    },
    Match.Status.FINISHED: {Match.Status.ERROR},
    Match.Status.ERROR: {Match.Status.QUEUED},
}


def match_set_status(*, match: Match, status: str, **fields: Any) -> Match:
    """Change a match's status (and any other fields) if the transition is allowed."""
    allowed = ALLOWED_TRANSITIONS.get(Match.Status(match.status), set())
    if status not in allowed:
        raise Refused(f"a {match.status} match cannot become {status}")
    match.status = status
    for key, value in fields.items():
        setattr(match, key, value)
    match.save(update_fields=["status", *fields])
    return match


def match_time_limits_s(match: Match) -> tuple[float, float]:
    """(soft, hard) Celery time limits derived from the game: its rounds, seats and clock.

    Games do not declare a turn cap, so a round is assumed to take at most
    ``max(10, 200 // rounds)`` calls per seat (a one-round chess game: 200 plies each), every
    call allowed its full budget; clamped to [5 min, 6 h].
    """
    seats = match.participants.count() or 2
    try:
        game = create_game(
            ArenaConfig.for_seats(
                match.game, [f"seat{i}" for i in range(seats)], match.seed, match.config
            )
        )
        rounds = max(1, int(game.total_rounds))
    except Exception:  # a game that cannot say: assume a long one
        logger.exception("could not size match %s of %s", match.pk, match.game)
        rounds = 200
    per_call_s = settings.ARENA_TURN_TIMEOUT_S if match.timed else 60.0
    calls = rounds * seats * max(10, 200 // rounds)
    hard = min(max(60.0 + calls * per_call_s, 300.0), 6 * 3600.0)
    return hard - 30, hard


def match_queue(match: Match) -> str:
    """The Celery queue a match runs in: validations apart, so a burst of uploads cannot delay
    anyone's training or ranked matches (every worker consumes ``ARENA_WORKER_QUEUES``)."""
    return "validation" if match.kind == Match.Kind.VALIDATION else "matches"


def match_enqueue(match_id: int) -> None:
    """Send the match to its queue with time limits from its game."""
    from arena.matches.tasks import match_run_task

    match = Match.objects.get(pk=match_id)
    soft, hard = match_time_limits_s(match)
    match_run_task.apply_async(
        args=[match_id], queue=match_queue(match), soft_time_limit=soft, time_limit=hard
    )


def match_create(
    *,
    kind: str,
    submissions: Sequence[Submission],
    timed: bool = True,
    requested_by: User | None = None,
    seed: int | None = None,
) -> Match:
    """Store a match pinning these submissions (seat order) and enqueue it once committed."""
    game = submissions[0].agent.game
    if any(s.agent.game != game for s in submissions):
        raise Refused("every seat of a match must play the same game")
    match = Match.objects.create(
        game=game,
        game_version=get_game_spec(game).version,
        kind=kind,
        timed=timed,
        seed=secrets.randbelow(2**31) if seed is None else seed,
        requested_by=requested_by,
    )
    Participant.objects.bulk_create(
        Participant(match=match, seat=seat, submission=s) for seat, s in enumerate(submissions)
    )
    transaction.on_commit(lambda: match_enqueue(match.pk))
    return match


def training_create(*, user: User, submission_id: int, opponent: str, timed: bool = True) -> Match:
    """An unrated match of the user's accepted submission against a house bot or their own."""
    from arena.submissions.services import house_submission_ensure

    submission = Submission.objects.select_related("agent").filter(pk=submission_id).first()
    if submission is None:
        raise NotFound(f"no submission {submission_id}")
    if submission.agent.owner_id != user.pk:
        raise Forbidden("you can only train your own agents")
    if submission.status != Submission.Status.ACCEPTED:
        raise Refused(f"only accepted submissions can train; this one is {submission.status}")
    game = submission.agent.game
    if str(opponent).startswith("house:"):
        other = house_submission_ensure(game=game, bot=str(opponent).removeprefix("house:"))
    else:
        try:
            other_id = int(opponent)
            if not 0 < other_id < 2**63:
                raise ValueError(other_id)
        except (TypeError, ValueError):
            raise Refused(
                f'opponent {opponent!r}: use "house:<bot>" or the id of one of your submissions'
            ) from None
        other = Submission.objects.select_related("agent").filter(pk=other_id).first()
        if other is None or other.agent.owner_id != user.pk:
            raise Forbidden("you can only train against house bots or your own submissions")
        if other.status != Submission.Status.ACCEPTED or other.agent.game != game:
            raise Refused(f"the opponent must be an accepted {game} submission")
    with transaction.atomic():
        # Count and insert under the user's row lock: concurrent requests cannot all see the
        # same count (DESIGN.md: quotas are atomic).
        user_lock(user)
        hourly_quota_check(
            recent=Match.objects.filter(kind=Match.Kind.TRAINING, requested_by=user),
            limit=settings.ARENA_TRAINING_PER_HOUR,
            what="training matches",
            field="created",
        )
        return match_create(
            kind=Match.Kind.TRAINING,
            submissions=[submission, other],
            timed=timed,
            requested_by=user,
        )


#: A stored state keeps each top-level field up to this size; bigger ones are summarised (a
#: poker ``history`` can reach 100 KB a call, which would make one match's log tens of MB).
PAYLOAD_FIELD_LIMIT_BYTES = 4096


def compact_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """The log entry as stored: oversized payload fields replaced by a note saying so."""
    payload = entry.get("payload")
    if not isinstance(payload, dict):
        return entry
    compact = {}
    for key, value in payload.items():
        size = len(json.dumps(value, default=str))
        if size > PAYLOAD_FIELD_LIMIT_BYTES:
            count = f"{len(value)} items, " if isinstance(value, list | dict) else ""
            compact[key] = f"[{count}{size:,} bytes: not stored]"
        else:
            compact[key] = value
    return {**entry, "payload": compact}


class _EventWriter:
    """Stores the referee's log entries while the match runs, so the page can show them live.

    The referee adds ``action`` and ``illegal`` to an entry after announcing it, so the newest
    entry is held back until the next one arrives (or the match ends).
    """

    flush_every_s = 0.5

    def __init__(self, match_id: int) -> None:
        self.match_id = match_id
        self.pending: list[dict[str, Any]] = []
        self.last_flush = time.monotonic()

    def __call__(self, entry: dict[str, Any]) -> None:
        self.pending.append(entry)
        if time.monotonic() - self.last_flush >= self.flush_every_s:
            self.flush(keep_last=True)

    def flush(self, *, keep_last: bool = False) -> None:
        ready = self.pending[:-1] if keep_last else self.pending
        if ready:
            MatchEvent.objects.bulk_create(
                [
                    MatchEvent(
                        match_id=self.match_id,
                        seq=entry.get("seq", 0),
                        seat=entry.get("seat"),
                        data=compact_entry(entry),
                    )
                    for entry in ready
                ],
                ignore_conflicts=True,
            )
            self.pending = self.pending[len(ready) :]
        self.last_flush = time.monotonic()


def match_run(*, match_id: int) -> str:
    """Play the match if nobody has finished it yet; returns ``done`` or ``retry``.

    Idempotent: a redelivered task finds the match finished and stops; a match whose worker
    died mid-way (status still running) is played again from the start.
    """
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.is_done:
            return DONE
        match_set_status(
            match=match,
            status=Match.Status.RUNNING,
            attempts=match.attempts + 1,
            started=timezone.now(),
        )
        MatchEvent.objects.filter(match=match).delete()  # a replayed attempt logs from scratch
    participants = list(match.participants.select_related("submission__agent").order_by("seat"))
    writer = _EventWriter(match.pk)
    try:
        from arena.matches.sandboxing import make_handle

        # Freezing the waiting agent (≈25 ms a call) keeps it from computing on its opponent's
        # time; that only matters where the result counts. Validation plays an agent against
        # itself and training is unrated, so they run unfrozen (a poker self-play: minutes less).
        freeze = match.kind == Match.Kind.RANKED
        handles = [make_handle(p.submission, freeze_idle=freeze) for p in participants]
        record = play_match(
            match.game,
            handles,
            seed=match.seed,
            config=match.config,
            settings=MatchSettings(
                timed=match.timed,
                turn_timeout_s=settings.ARENA_TURN_TIMEOUT_S,
                keep_stdout=match.kind != Match.Kind.RANKED,
            ),
            on_event=writer,
        )
    except Exception as exc:  # the platform failed (sandbox, settings): never the agents' fault
        logger.exception("match %s could not be played", match_id)
        writer.flush()
        return _platform_failure(match_id, f"{type(exc).__name__}: {exc}")
    writer.flush()
    if record.platform_error:
        return _platform_failure(match_id, record.platform_error)
    match_record_result(match_id=match_id, record=record)
    return DONE


def _platform_failure(match_id: int, error: str) -> str:
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.is_done:
            return DONE
        if match.attempts < settings.ARENA_MATCH_MAX_ATTEMPTS:
            match_set_status(match=match, status=Match.Status.QUEUED, error=error)
            return RETRY
        match_set_status(
            match=match,
            status=Match.Status.ERROR,
            error=error,
            finished=timezone.now(),
            summary=f"platform error after {match.attempts} attempts (unrated): {error[:300]}",
        )
        if match.kind == Match.Kind.VALIDATION:
            submission = match.participants.get(seat=0).submission
            submission.status_detail = (
                "the platform could not run the self-play (not your agent's fault); an "
                "administrator can re-run it"
            )
            submission.save(update_fields=["status_detail"])
    return DONE


@transaction.atomic
def match_record_result(*, match_id: int, record: MatchRecord) -> Match:
    """Store the outcome and apply its effects (Elo, validation) once, under the match's lock."""
    match = Match.objects.select_for_update().get(pk=match_id)
    if match.is_done:
        return match  # a duplicate delivery got here second: nothing to apply again
    # Not record.to_dict(): it deep-copies the whole log (tens of MB in poker), which the
    # events already hold.
    seats = [
        {
            "seat": s.seat,
            "outcome": str(s.outcome) if s.outcome else None,
            "reason": str(s.reason) if s.reason else None,
            "detail": s.detail,
            "score": s.score,
        }
        for s in record.seats
    ]
    data = {
        "seats": seats,
        "round_results": record.round_results,
        "stats": record.stats,
        "final_state": record.final_state,
    }
    for seat in seats:
        Participant.objects.filter(match=match, seat=seat["seat"]).update(
            outcome=seat["outcome"] or "",
            reason=seat["reason"] or "",
            detail=seat["detail"] or "",
            score=seat["score"],
        )
    match_set_status(
        match=match,
        status=Match.Status.FINISHED,
        winner_seat=record.winner,
        rounds=data["round_results"],
        stats=data["stats"],
        final_state=data["final_state"],
        summary=record.summary(),
        duration_s=record.duration_s,
        finished=timezone.now(),
        error="",
    )
    if match.kind == Match.Kind.RANKED:
        from arena.ratings.services import rating_apply

        rating_apply(match=match)
    elif match.kind == Match.Kind.VALIDATION:
        _validation_finished(match, data)
    return match


def _validation_finished(match: Match, data: dict[str, Any]) -> None:
    from arena.submissions.services import submission_set_status

    submission = match.participants.get(seat=0).submission
    failed = [s for s in data["seats"] if s["reason"] not in ("normal", None)]
    if failed:
        seat = failed[0]
        detail = (
            f"the self-play match ended by {seat['reason']} (seat {seat['seat']}): {seat['detail']}"
        )
        submission_set_status(submission=submission, status="rejected", detail=detail)
    else:
        submission_set_status(
            submission=submission,
            status="accepted",
            detail=f"finished a {match.game} game against itself: {match.summary}",
        )


@transaction.atomic
def match_rerun(*, match: Match) -> Match:
    """Admin: queue an errored match again (its attempts start over)."""
    match = Match.objects.select_for_update().get(pk=match.pk)
    match_set_status(match=match, status=Match.Status.QUEUED, attempts=0, error="")
    transaction.on_commit(lambda: match_enqueue(match.pk))
    return match


@transaction.atomic
def match_void(*, match: Match, reason: str = "voided by an administrator") -> Match:
    """Admin: mark a match as not counting. A rated match leaves its ladder, which is replayed
    without it (``ratings_recompute``): Elo is path-dependent, so later updates change too."""
    from arena.ratings.services import ratings_recompute

    match = Match.objects.select_for_update().get(pk=match.pk)
    if match.status == Match.Status.ERROR:
        return match
    if match.status == Match.Status.QUEUED:
        return match_set_status(match=match, status=Match.Status.ERROR, error=reason)
    if match.status == Match.Status.RUNNING:
        match.status = Match.Status.FINISHED  # let the void path below apply
    was_rated = match.rated
    match = match_set_status(match=match, status=Match.Status.ERROR, error=reason)
    if was_rated:
        ratings_recompute(game=match.game, game_version=match.game_version)
    return match

"""Writes for matches: create, training, an attempt's begin and end, admin status changes.

Every result of an attempt is typed: ``match_begin`` gives the locked match or a ``Skip``;
``match_play`` (``play.py``, the sandbox and the referee) gives the referee's ``MatchRecord`` or a
``PlayFailure``; ``match_platform_failure`` says whether the match goes back to the queue
(``RunOutcome.RETRY``) or is over (``RunOutcome.DONE``). The status machine is in
``status.py``, the live log in ``eventlog.py``. Enqueuing and the effects on other apps (Elo,
validation) are workflows (``arena.workflows``): these functions only change the match's own
rows.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from arena import metrics
from arena.accounts.models import User
from arena.bulk import insert_copies
from arena.errors import Forbidden, Refused
from arena.matches.eventlog import json_safe, text_safe
from arena.matches.logstore import match_log_archive, match_log_delete
from arena.matches.models import Match, Participant
from arena.matches.status import match_deadline, match_set_status, match_time_limits_s
from arena.submissions.models import Submission
from arena.submissions.selectors import submission_to_play
from arena.submissions.services import house_submission_ensure
from arena.throttles import hourly_quota_check, user_lock
from games.core import MatchRecord, get_game_spec
from games.core.validation import validation_plan

logger = logging.getLogger(__name__)

#: Longest platform error text kept for owners, and traceback kept for staff.
ERROR_MAX_CHARS = 4000
TRACE_MAX_CHARS = 32_000


class RunOutcome(StrEnum):
    """What became of one attempt at a match: what the Celery task acts on."""

    #: Nothing more to do: recorded, ended as an error, or not this task's to play.
    DONE = "done"
    #: A platform error with attempts left: the match is queued again.
    RETRY = "retry"


class Skip(Enum):
    """Why ``match_begin`` started no attempt."""

    #: Finished, errored or deleted: nothing to play.
    NOTHING_TO_PLAY = "nothing to play"
    #: Another task is playing it and is not overdue (a duplicate message).
    BUSY = "busy"
    #: The attempts are used up (a worker died on the last one).
    EXHAUSTED = "exhausted"


@dataclass(frozen=True)
class PlayFailure:
    """The platform could not play the match (never an agent's fault).

    ``error`` is for the agents' owners and staff; ``trace`` (the exception and its traceback,
    which may quote the game's hidden state) for staff only.
    """

    error: str
    trace: str = ""
    #: False when another attempt would fail the same way (a bug in a game engine, on the same
    #: seed): the match then ends at once instead of using up its attempts.
    retry: bool = True


def match_create(
    *,
    kind: str,
    submissions: Sequence[Submission],
    timed: bool = True,
    requested_by: User | None = None,
    seed: int | None = None,
) -> Match:
    """Store a queued match pinning these submissions (seat order); the caller enqueues it."""
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
        # A validation plays the game's short validation match (games.core.validation).
        config=validation_plan(game).config if kind == Match.Kind.VALIDATION else {},
    )
    Participant.objects.bulk_create(
        Participant(match=match, seat=seat, submission=s) for seat, s in enumerate(submissions)
    )
    return match


def matches_create_ranked(*, game: str, pairs: Sequence[Sequence[int]]) -> list[Match]:
    """Store one queued, timed ranked match of ``game`` per pair of submission ids (seat order
    as given) in a constant number of queries; the caller enqueues them. Matchmaking creates
    hundreds in one pass."""
    if not pairs:
        return []
    template = Match(
        game=game, game_version=get_game_spec(game).version, kind=Match.Kind.RANKED, timed=True
    )
    rows = insert_copies(template, {"seed": [secrets.randbelow(2**31) for _ in pairs]})
    insert_copies(
        Participant(),
        {
            "match": [row[0] for row, pair in zip(rows, pairs, strict=True) for _ in pair],
            "seat": [seat for pair in pairs for seat in range(len(pair))],
            "submission": [submission_id for pair in pairs for submission_id in pair],
        },
    )
    # The matches differ in their seeds alone, so which pair sits in which match is free.
    fields = Match._meta.concrete_fields
    names = [f.attname for f in fields]
    values = [getattr(template, name) for name in names]
    at = {name: i for i, name in enumerate(names)}
    matches = []
    for match_id, seed in rows:
        values[at["id"]], values[at["seed"]] = match_id, seed
        matches.append(Match.from_db(connection.alias, names, values))
    return matches


#: The hourly quota of each kind of match users ask for: the setting that caps it, and what the
#: refusal calls those matches.
REQUESTED_PER_HOUR: dict[str, tuple[str, str]] = {
    Match.Kind.TRAINING: ("ARENA_TRAINING_PER_HOUR", "training matches"),
    Match.Kind.CHALLENGE: ("ARENA_CHALLENGES_PER_HOUR", "challenges"),
}


def requested_quota_check(*, user: User, kind: str) -> None:
    """Refuse (429) a match of ``kind`` that ``user`` asks for over its hourly quota.

    It takes the user's row lock: call it in the transaction that then creates the match, so
    that concurrent requests cannot all see the same count (quotas are atomic).
    """
    setting, what = REQUESTED_PER_HOUR[kind]
    user_lock(user)
    hourly_quota_check(
        recent=Match.objects.filter(kind=kind, requested_by=user),
        limit=getattr(settings, setting),
        what=what,
        field="created",
    )


def training_create(*, user: User, submission_id: int, opponent: str, timed: bool = True) -> Match:
    """An unrated match of the user's accepted submission against a house bot or their own.

    Call inside a transaction; the caller enqueues it (``arena.workflows.matches``).
    """
    submission = submission_to_play(
        submission_id=submission_id,
        user=user,
        purpose="train",
        not_yours="you can only train your own agents",
    )
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
        found = Submission.objects.select_related("agent").filter(pk=other_id).first()
        if found is None or found.agent.owner_id != user.pk:
            raise Forbidden("you can only train against house bots or your own submissions")
        other = found
        if other.status != Submission.Status.ACCEPTED or other.agent.game != game:
            raise Refused(f"the opponent must be an accepted {game} submission")
    requested_quota_check(user=user, kind=Match.Kind.TRAINING)
    return match_create(
        kind=Match.Kind.TRAINING,
        submissions=[submission, other],
        timed=timed,
        requested_by=user,
    )


def match_requeue(*, match: Match) -> Match:
    """Admin: queue a locked, errored match again (its attempts start over)."""
    if match.status != Match.Status.ERROR:
        raise Refused(
            f"only a match that ended in an error can be re-run; this one is {match.status}"
        )
    return match_set_status(match=match, status=Match.Status.QUEUED, attempts=0, error="")


def match_void_status(*, match: Match, reason: str) -> bool:
    """Mark a locked match as not counting; returns whether it had been rated (its ladder must
    then be recomputed)."""
    if match.status == Match.Status.ERROR:
        return False
    if match.status == Match.Status.QUEUED:
        match_set_status(match=match, status=Match.Status.ERROR, error=reason)
        return False
    if match.status == Match.Status.RUNNING:
        match.status = Match.Status.FINISHED  # let the void path below apply
    was_rated = match.rated
    match_set_status(match=match, status=Match.Status.ERROR, error=reason)
    return was_rated


def match_lock(*, match_id: int) -> Match | None:
    """The match row, locked until the surrounding transaction ends (``None`` if deleted)."""
    return Match.objects.select_for_update().filter(pk=match_id).first()


@transaction.atomic
def match_begin(*, match_id: int, task_id: str = "") -> Match | Skip:
    """Mark the match running for one more attempt, or say why not (``Skip``).

    Idempotent: a redelivered task finds the match finished and stops; a match whose worker
    died mid-way (status still running, same task redelivered) is played again from the start,
    within ``ARENA_MATCH_MAX_ATTEMPTS`` however many times the broker redelivers it.
    """
    match = match_lock(match_id=match_id)
    if match is None or match.is_done:
        return Skip.NOTHING_TO_PLAY
    if match.status == Match.Status.RUNNING and match.task_id and match.task_id != task_id:
        deadline = match_deadline(match)
        if deadline is not None and timezone.now() < deadline:
            return Skip.BUSY
    if match.attempts >= settings.ARENA_MATCH_MAX_ATTEMPTS:
        return Skip.EXHAUSTED
    match_set_status(
        match=match,
        status=Match.Status.RUNNING,
        attempts=match.attempts + 1,
        started=timezone.now(),
        task_id=task_id[:64],
        # Once a match: the sweeper then reads it instead of building the game every pass.
        time_limit_s=(
            match.time_limit_s if match.time_limit_s is not None else match_time_limits_s(match)[1]
        ),
    )
    match_log_delete(match=match)  # a replayed attempt logs from scratch
    return match


def match_platform_failure(*, match: Match, failure: PlayFailure) -> RunOutcome:
    """Queue a locked match again after a platform error, or end it unrated after the last
    attempt."""
    error = text_safe(failure.error, limit=ERROR_MAX_CHARS)
    trace = text_safe(failure.trace, limit=TRACE_MAX_CHARS)
    if failure.retry and match.attempts < settings.ARENA_MATCH_MAX_ATTEMPTS:
        match_set_status(match=match, status=Match.Status.QUEUED, error=error, error_trace=trace)
        return RunOutcome.RETRY
    attempts = "1 attempt" if match.attempts == 1 else f"{match.attempts} attempts"
    match_set_status(
        match=match,
        status=Match.Status.ERROR,
        error=error,
        error_trace=trace,
        finished=timezone.now(),
        # The text stays in ``error`` (owners and staff); the summary is shown everywhere.
        summary=(
            f"platform error after {attempts} (unrated)"
            if failure.retry
            else "platform error, not retried: it would fail the same way (unrated)"
        ),
    )
    return RunOutcome.DONE


def match_record_result(*, match: Match, record: MatchRecord) -> Match:
    """Store the outcome of a locked, unfinished match: seats, rounds, summary, ``finished``."""
    # Not record.to_dict(): it deep-copies the whole log (tens of MB in poker), which the
    # events already hold. Details, states and stats can carry what an agent sent: made safe.
    for s in record.seats:
        if s.reason and str(s.reason) != "normal":
            metrics.inc(metrics.FORFEITS, game=match.game, reason=str(s.reason))
        score = json_safe(s.score)
        Participant.objects.filter(match=match, seat=s.seat).update(
            outcome=str(s.outcome) if s.outcome else "",
            reason=str(s.reason) if s.reason else "",
            detail=text_safe(str(s.detail or ""), limit=8000),
            score=score if isinstance(score, int | float) else None,
        )
    return match_set_status(
        match=match,
        status=Match.Status.FINISHED,
        winner_seat=record.winner,
        rounds=json_safe(record.rounds),
        stats=json_safe(record.stats),
        final_state=json_safe(record.final_state),
        summary=text_safe(record.summary(), limit=8000),
        duration_s=record.duration_s,
        finished=timezone.now(),
        error="",
        error_trace="",
    )


def match_log_pack(*, match_id: int) -> None:
    """Pack a finished match's log into one blob, outside the result's transaction: if that
    fails the rows stay (the read path serves them too) and ``match_logs_maintain`` packs them."""
    try:
        match_log_archive(match_id=match_id)
    except Exception:
        logger.exception(
            "match %s: packing its log failed; the hourly maintenance retries", match_id
        )

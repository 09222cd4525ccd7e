"""Play one match and record what happened (the match's own rows; effects on other apps are the
workflows' business, ``arena.workflows.matches``, which describes the whole chain from the Celery
task to the referee).

Every result here is typed: ``match_begin`` gives the locked match or a ``Skip``; ``match_play``
gives the referee's ``MatchRecord`` or a ``PlayFailure``; ``match_platform_failure`` says whether
the match goes back to the queue (``RunOutcome.RETRY``) or is over (``RunOutcome.DONE``).
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, StrEnum

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena import metrics
from arena.llm.judging import PlatformJudge, platform_judge
from arena.matches import sandboxing
from arena.matches.clock import match_clock
from arena.matches.eventlog import EventWriter, json_safe, text_safe
from arena.matches.logstore import match_log_archive, match_log_delete
from arena.matches.models import Match, Participant
from arena.matches.status import match_deadline, match_set_status
from games.core import MatchRecord, MatchSettings, play_match
from games.core.judge import Judge
from games.core.record import LogEntry
from games.core.registry import is_judged, offline_judge
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
    )
    match_log_delete(match=match)  # a replayed attempt logs from scratch
    return match


def match_play(*, match: Match) -> MatchRecord | PlayFailure:
    """Play the match in the sandbox, logging as it goes; the record, or the platform's failure
    (the sandbox, a setting, a bug in the game engine: never the agents' fault)."""
    participants = list(match.participants.select_related("submission__agent").order_by("seat"))
    writer = EventWriter(match.pk)
    judge: Judge | None = None
    try:
        clock = match_clock(match)  # once a match: a tournament's time control, or the platform's
        # Freezing the waiting agent (≈25 ms a call) keeps it from computing on its opponent's
        # time; that only matters where the result counts. Validation plays an agent against
        # itself and training is unrated, so they run unfrozen (a poker self-play: minutes less).
        freeze = match.kind in (Match.Kind.RANKED, Match.Kind.TOURNAMENT)
        handles = [
            sandboxing.make_handle(
                p.submission,
                freeze_idle=freeze,
                match_id=match.pk,
                seat=p.seat,
                match_attempt=match.attempts,
                validation=match.kind == Match.Kind.VALIDATION,
                model_move_budget_s=clock.model_move_budget_s,
            )
            for p in participants
        ]
        judge = _judge_of(match)
        record = play_match(
            match.game,
            handles,
            seed=match.seed,
            config=match.config,
            settings=MatchSettings(
                timed=match.timed,
                turn_timeout_s=clock.turn_budget_s,
                keep_stdout=(
                    match.kind not in (Match.Kind.RANKED, Match.Kind.TOURNAMENT)
                    or settings.ARENA_RANKED_PRINTS_RETENTION_DAYS > 0
                ),
                # A validation's time is bounded whatever the agent does.
                max_turns=(
                    validation_plan(match.game).max_turns
                    if match.kind == Match.Kind.VALIDATION
                    else None
                ),
            ),
            on_event=CallMetrics(
                writer if match.kind != Match.Kind.CHALLENGE else _challenger_prints(writer),
                game=match.game,
            ),
            judge=judge,
        )
    except Exception as exc:  # the platform failed (sandbox, settings): never the agents' fault
        logger.exception("match %s could not be played", match.pk)
        return PlayFailure(error=f"{type(exc).__name__}: {exc}", trace=traceback.format_exc())
    finally:
        writer.flush()  # never raises: a log that cannot be stored is stored marked
        if isinstance(judge, PlatformJudge):
            judge.close()
    if record.platform_error:
        logger.error(
            "match %s: platform error: %s\n%s",
            match.pk,
            record.platform_error,
            record.platform_traceback or "",
        )
        return PlayFailure(error=record.platform_error, trace=record.platform_traceback or "")
    return record


def _judge_of(match: Match) -> Judge | None:
    """The judge of a judged game's match: the operator's model (``arena.llm.judging``), or for
    an upload's validation the game's scripted stand-in (validation proves the agent answers
    every call; it is unrated and must not spend the site's model budget). ``JudgeFailed``
    (a platform error) when the game has no judge."""
    if not is_judged(match.game):
        return None
    if match.kind == Match.Kind.VALIDATION:
        return offline_judge(match.game)
    return platform_judge(game_id=match.game, match_id=match.pk, match_attempt=match.attempts)


def _challenger_prints(writer: EventWriter) -> Callable[[LogEntry], None]:
    """A challenge keeps the prints of the challenger's seat (0) only: the challenged agent's
    owner did not ask for the match, so nothing of its output is stored."""

    def write(entry: LogEntry) -> None:
        if entry.get("seat") != 0 and entry.get("stdout") is not None:
            entry = {**entry, "stdout": None}
        writer(entry)

    return write


class CallMetrics:
    """Passes each log entry on to ``sink`` and counts agent calls in the metrics: the wall
    time waited, the time charged to the agent, and the path that froze it afterwards."""

    def __init__(self, sink: Callable[[LogEntry], None], *, game: str) -> None:
        self.sink = sink
        self.game = game

    def __call__(self, entry: LogEntry) -> None:
        self.sink(entry)
        wall_ms, charged_ms = entry.get("wall_ms"), entry.get("elapsed_ms")
        if isinstance(wall_ms, int | float):
            metrics.observe(metrics.CALL_LATENCY, wall_ms / 1000, game=self.game)
        if isinstance(charged_ms, int | float):
            metrics.observe(metrics.CALL_CHARGED, charged_ms / 1000, game=self.game)
        freeze = entry.get("freeze")
        if isinstance(freeze, str) and freeze:
            metrics.inc(metrics.FREEZES, path=freeze[:32])


def match_platform_failure(*, match: Match, failure: PlayFailure) -> RunOutcome:
    """Queue a locked match again after a platform error, or end it unrated after the last
    attempt."""
    error = text_safe(failure.error, limit=ERROR_MAX_CHARS)
    trace = text_safe(failure.trace, limit=TRACE_MAX_CHARS)
    if match.attempts < settings.ARENA_MATCH_MAX_ATTEMPTS:
        match_set_status(match=match, status=Match.Status.QUEUED, error=error, error_trace=trace)
        return RunOutcome.RETRY
    match_set_status(
        match=match,
        status=Match.Status.ERROR,
        error=error,
        error_trace=trace,
        finished=timezone.now(),
        # The text stays in ``error`` (owners and staff); the summary is shown everywhere.
        summary=f"platform error after {match.attempts} attempts (unrated)",
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

"""Play one match and record what happened (the match's own rows; effects on other apps are the
workflows' business, ``arena.workflows.matches``)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.matches import sandboxing
from arena.matches.eventlog import EventWriter, json_safe, text_safe
from arena.matches.logstore import match_log_archive, match_log_delete
from arena.matches.models import Match, Participant
from arena.matches.status import match_deadline, match_set_status
from games.core import MatchRecord, MatchSettings, play_match

logger = logging.getLogger(__name__)

DONE, RETRY = "done", "retry"
#: ``match_begin``: the attempts are used up (a worker died on the last one).
EXHAUSTED = "exhausted"
#: ``match_begin``: another task is playing it and is not overdue (a duplicate message).
BUSY = "busy"


def match_lock(*, match_id: int) -> Match | None:
    """The match row, locked until the surrounding transaction ends (``None`` if deleted)."""
    return Match.objects.select_for_update().filter(pk=match_id).first()


@transaction.atomic
def match_begin(*, match_id: int, task_id: str = "") -> Match | str:
    """Mark the match running for one more attempt, or say why not: ``done`` (nothing to
    play), ``busy`` (another live task plays it) or ``exhausted`` (no attempt left).

    Idempotent: a redelivered task finds the match finished and stops; a match whose worker
    died mid-way (status still running, same task redelivered) is played again from the start,
    within ``ARENA_MATCH_MAX_ATTEMPTS`` however many times the broker redelivers it.
    """
    match = match_lock(match_id=match_id)
    if match is None or match.is_done:
        return DONE
    if match.status == Match.Status.RUNNING and match.task_id and match.task_id != task_id:
        deadline = match_deadline(match)
        if deadline is not None and timezone.now() < deadline:
            return BUSY
    if match.attempts >= settings.ARENA_MATCH_MAX_ATTEMPTS:
        return EXHAUSTED
    match_set_status(
        match=match,
        status=Match.Status.RUNNING,
        attempts=match.attempts + 1,
        started=timezone.now(),
        task_id=task_id[:64],
    )
    match_log_delete(match=match)  # a replayed attempt logs from scratch
    return match


def match_play(*, match: Match) -> MatchRecord | str:
    """Play the match in the sandbox, logging as it goes; the record, or the platform's error."""
    participants = list(match.participants.select_related("submission__agent").order_by("seat"))
    writer = EventWriter(match.pk)
    try:
        # Freezing the waiting agent (≈25 ms a call) keeps it from computing on its opponent's
        # time; that only matters where the result counts. Validation plays an agent against
        # itself and training is unrated, so they run unfrozen (a poker self-play: minutes less).
        freeze = match.kind == Match.Kind.RANKED
        handles = [
            sandboxing.make_handle(
                p.submission,
                freeze_idle=freeze,
                match_id=match.pk,
                seat=p.seat,
                match_attempt=match.attempts,
                validation=match.kind == Match.Kind.VALIDATION,
            )
            for p in participants
        ]
        record = play_match(
            match.game,
            handles,
            seed=match.seed,
            config=match.config,
            settings=MatchSettings(
                timed=match.timed,
                turn_timeout_s=settings.ARENA_TURN_TIMEOUT_S,
                keep_stdout=(
                    match.kind != Match.Kind.RANKED
                    or settings.ARENA_RANKED_PRINTS_RETENTION_DAYS > 0
                ),
            ),
            on_event=writer,
        )
    except Exception as exc:  # the platform failed (sandbox, settings): never the agents' fault
        logger.exception("match %s could not be played", match.pk)
        return f"{type(exc).__name__}: {exc}"
    finally:
        writer.flush()  # never raises: a log that cannot be stored is stored marked
    if record.platform_error:
        return str(record.platform_error)
    return record


def match_platform_failure(*, match: Match, error: str) -> str:
    """Queue a locked match again after a platform error, or end it unrated after the last
    attempt; returns ``retry`` or ``done``."""
    error = text_safe(error, limit=4000)
    if match.attempts < settings.ARENA_MATCH_MAX_ATTEMPTS:
        match_set_status(match=match, status=Match.Status.QUEUED, error=error)
        return RETRY
    match_set_status(
        match=match,
        status=Match.Status.ERROR,
        error=error,
        finished=timezone.now(),
        # The text stays in ``error`` (owners and staff); the summary is shown everywhere.
        summary=f"platform error after {match.attempts} attempts (unrated)",
    )
    return DONE


def match_record_result(*, match: Match, record: MatchRecord) -> Match:
    """Store the outcome of a locked, unfinished match: seats, rounds, summary, ``finished``."""
    # Not record.to_dict(): it deep-copies the whole log (tens of MB in poker), which the
    # events already hold. Details, states and stats can carry what an agent sent: made safe.
    for s in record.seats:
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
        rounds=json_safe(record.round_results),
        stats=json_safe(record.stats),
        final_state=json_safe(record.final_state),
        summary=text_safe(record.summary(), limit=8000),
        duration_s=record.duration_s,
        finished=timezone.now(),
        error="",
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

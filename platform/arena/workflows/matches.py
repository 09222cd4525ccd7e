"""Play → record → rate; training requests; admin re-runs and voids (→ ladder recompute).

How one match is played, each step with one job (docs/architecture.md, "The life of a match"):

1. ``workflows.tasks.match_run_task`` (Celery, ``acks_late``): calls ``match_run``; on
   ``RunOutcome.RETRY`` it asks Celery to deliver the task again a little later.
2. ``match_run`` (here): one attempt, start to end; the log packed once the match is over.
3. ``matches.services.match_begin``: under the match's row lock, a ``Skip`` (nothing to play,
   another live task plays it, attempts used up) or the match marked running for one more
   attempt.
4. ``matches.play.match_play``: one sandboxed ``AgentHandle`` per seat
   (``matches.sandboxing.make_handle``), then the referee, each log entry streamed to the
   match's event rows; the ``MatchRecord`` or a ``PlayFailure``.
5. ``games.core.referee.play_match``: the lifecycle, the clock and the illegal-action rule over
   the handles; an agent's failure is a forfeit in the record, the platform's (an engine's bug
   included) a ``platform_error`` with its traceback for staff.
6. ``match_record`` (here): under the lock, the outcome stored and its effects applied once (Elo
   for ranked matches, the verdict for validations); or ``match_fail`` for a ``PlayFailure``:
   queued again while attempts remain, else ended unrated.
7. ``matches.services.match_log_pack``: the per-call rows packed into one blob.
"""

from __future__ import annotations

import logging
import traceback

from django.db import transaction

from arena.accounts.models import User
from arena.db_outage import database_unreachable
from arena.errors import Refused
from arena.llm.selectors import model_entrant_of
from arena.llm.services import model_budget_refusal
from arena.matches import services as match_services
from arena.matches.models import Match
from arena.matches.play import match_play
from arena.matches.services import (
    PlayFailure,
    RunOutcome,
    Skip,
    match_begin,
    match_lock,
    match_log_pack,
    match_platform_failure,
    match_record_result,
)
from arena.ratings.services import rating_apply, ratings_recompute
from arena.workflows.competitions import match_effects
from arena.workflows.dispatch import match_enqueue_on_commit
from arena.workflows.submissions import validation_errored, validation_finished
from games.core import MatchRecord

logger = logging.getLogger(__name__)


def match_run(*, match_id: int, task_id: str = "") -> RunOutcome:
    """Play the match if nobody has finished it yet.

    Idempotent: a redelivered task finds the match finished and stops; a match whose worker
    died mid-way (status still running) is played again from the start, until its attempts
    are used up; a duplicate message leaves a live attempt alone.
    """
    match = match_begin(match_id=match_id, task_id=task_id)
    if match is Skip.NOTHING_TO_PLAY or match is Skip.BUSY:
        return RunOutcome.DONE
    if match is Skip.EXHAUSTED:
        failure = PlayFailure(error="the worker playing it stopped every attempt")
        return match_fail(match_id=match_id, failure=failure)
    outcome = _attempt(match)
    if outcome is RunOutcome.DONE:  # the match is over, recorded or failed: pack its log once
        match_log_pack(match_id=match_id)
    return outcome


def _attempt(match: Match) -> RunOutcome:
    """Play a begun match and record the result, or fail it: ``RETRY`` when it is queued again."""
    played = match_play(match=match)
    if isinstance(played, PlayFailure):
        return match_fail(match_id=match.pk, failure=played)
    try:
        match_record(match_id=match.pk, record=played)
    except Exception as exc:  # never leave it running: retried, then an unrated error
        if database_unreachable(exc):
            raise  # nothing can be recorded now: the task waits for the database and runs again
        logger.exception("match %s could not be recorded", match.pk)
        failure = PlayFailure(
            error=f"recording failed: {type(exc).__name__}", trace=traceback.format_exc()
        )
        return match_fail(match_id=match.pk, failure=failure)
    return RunOutcome.DONE


@transaction.atomic
def match_fail(*, match_id: int, failure: PlayFailure) -> RunOutcome:
    """A platform error: queue the match again, or end it unrated after the last attempt."""
    match = match_lock(match_id=match_id)
    if match is None or match.is_done:
        return RunOutcome.DONE
    outcome = match_platform_failure(match=match, failure=failure)
    if match.kind == Match.Kind.VALIDATION:
        validation_errored(match=match, retrying=match.status == Match.Status.QUEUED)
    if match.status == Match.Status.ERROR:
        match_effects(match=match)  # never raises: notifications, waiting challenges
    return outcome


@transaction.atomic
def match_record(*, match_id: int, record: MatchRecord) -> Match | None:
    """Store the outcome and apply its effects (Elo, validation) once, under the match's lock."""
    match = match_lock(match_id=match_id)
    if match is None or match.is_done:
        return match  # a duplicate delivery got here second: nothing to apply again
    match_record_result(match=match, record=record)
    if match.kind == Match.Kind.RANKED:
        rating_apply(match=match)
    elif match.kind == Match.Kind.VALIDATION:
        validation_finished(match=match, record=record)
    match_effects(match=match)  # never raises: notifications, auto-pause, waiting challenges
    return match


@transaction.atomic
def training_request(*, user: User, submission_id: int, opponent: str, timed: bool = True) -> Match:
    """An unrated match of the user's accepted submission against a house bot or their own,
    enqueued once committed."""
    match = match_services.training_create(
        user=user, submission_id=submission_id, opponent=opponent, timed=timed
    )
    for participant in match.participants.select_related("submission__agent"):
        entrant = model_entrant_of(participant.submission)
        reason = entrant and model_budget_refusal(config=entrant)
        if reason:
            raise Refused(f"{participant.submission.label} cannot play now: {reason}")
    match_enqueue_on_commit(match.pk)
    return match


@transaction.atomic
def match_rerun(*, match: Match) -> Match:
    """Admin: queue an errored match again (its attempts start over)."""
    locked = match_lock(match_id=match.pk)
    assert locked is not None, f"match {match.pk} vanished"
    match_services.match_requeue(match=locked)
    match_enqueue_on_commit(locked.pk)
    return locked


@transaction.atomic
def match_void(*, match: Match, reason: str = "voided by an administrator") -> Match:
    """Admin: mark a match as not counting. A rated match leaves its ladder, which is replayed
    without it (``ratings_recompute``): Elo is path-dependent, so later updates change too."""
    locked = match_lock(match_id=match.pk)
    assert locked is not None, f"match {match.pk} vanished"
    if match_services.match_void_status(match=locked, reason=reason):
        ratings_recompute(game=locked.game, game_version=locked.game_version)
    return locked

"""Every match ends: the sweeper (a beat task) finds what a dead worker or a lost message left.

A running match past its deadline (start + its game's hard time limit + a grace) had its worker
die or hang: it is queued again while attempts remain, else ended as an unrated platform error
(a validation tells the uploader it was not their fault). A queued match whose task was sent
``ARENA_MATCH_QUEUED_MAX_S`` ago is sent again (the embedded broker loses messages when its
worker is killed). Idempotent: each step re-checks under the match's lock.

A running match whose task no live worker reports as active (its worker was killed) is treated
as overdue at once, without waiting for its deadline: the workers are asked (Celery's
``inspect().active()``); when none answers, only deadlines count.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from arena.celery_app import app
from arena.competitions.services import challenges_release
from arena.matches.models import Match
from arena.matches.services import PlayFailure, RunOutcome, match_lock, match_platform_failure
from arena.matches.status import match_deadline
from arena.workflows.competitions import match_effects
from arena.workflows.dispatch import match_enqueue_on_commit
from arena.workflows.submissions import validation_errored

logger = logging.getLogger(__name__)


def live_task_ids() -> set[str] | None:
    """The ids of the tasks the live workers are running, or ``None`` when none answers."""
    if app.conf.task_always_eager:
        return None
    try:
        replies = app.control.inspect(timeout=settings.ARENA_SWEEP_ASK_TIMEOUT_S).active()
    except Exception:  # the broker cannot broadcast or is down: fall back on deadlines
        logger.info("no worker could be asked for its active tasks", exc_info=True)
        return None
    if not replies:
        return None
    return {str(task.get("id")) for tasks in replies.values() for task in tasks or []}


def matches_sweep() -> dict[str, int]:
    """One sweep; returns how many matches were re-queued, errored and re-sent."""
    counts = {"requeued": 0, "errored": 0, "resent": 0}
    now = timezone.now()
    running = list(Match.objects.filter(status=Match.Status.RUNNING).values_list("pk", flat=True))
    live = live_task_ids() if running else None
    orphan_after = now - timedelta(seconds=settings.ARENA_MATCH_ORPHAN_GRACE_S)
    for match_id in running:
        with transaction.atomic():
            match = match_lock(match_id=match_id)
            if match is None or match.status != Match.Status.RUNNING:
                continue
            deadline = match_deadline(match)
            orphaned = (
                live is not None
                and match.task_id not in live
                and match.started is not None
                and match.started < orphan_after
            )
            if not orphaned and deadline is not None and now < deadline:
                continue
            why = "no live worker runs it" if orphaned else "it overran its deadline"
            error = f"attempt {match.attempts} was lost: {why} (its worker stopped)"
            outcome = match_platform_failure(match=match, failure=PlayFailure(error=error))
            if outcome is RunOutcome.RETRY:
                match_enqueue_on_commit(match.pk)
                counts["requeued"] += 1
            else:
                counts["errored"] += 1
            if match.kind == Match.Kind.VALIDATION:
                validation_errored(match=match, retrying=outcome is RunOutcome.RETRY)
            if match.status == Match.Status.ERROR:
                match_effects(match=match)  # never raises: notifications, waiting challenges
            logger.warning("swept match %s: %s (%s)", match.pk, error, match.status)
    waited = now - timedelta(seconds=settings.ARENA_MATCH_QUEUED_MAX_S)
    # A challenge never sent waits for its user's challenges in flight (fair share): it is
    # released below when that user has room, not re-sent as lost.
    held = Q(kind=Match.Kind.CHALLENGE, enqueued__isnull=True)
    lost = (
        Match.objects.filter(status=Match.Status.QUEUED)
        .filter(Q(enqueued__lt=waited) | Q(enqueued__isnull=True, created__lt=waited))
        .exclude(held)
    )
    for match_id in lost.values_list("pk", flat=True):
        with transaction.atomic():
            match = match_lock(match_id=match_id)
            if match is None or match.status != Match.Status.QUEUED:
                continue
            match_enqueue_on_commit(match.pk)
            counts["resent"] += 1
    waiting_users = (
        Match.objects.filter(held, status=Match.Status.QUEUED, created__lt=waited)
        .exclude(requested_by=None)
        .values_list("requested_by_id", flat=True)
        .distinct()
    )
    for user_id in list(waiting_users):
        with transaction.atomic():
            for match_id in challenges_release(user_id=user_id):
                match_enqueue_on_commit(match_id)
                counts["resent"] += 1
    return counts

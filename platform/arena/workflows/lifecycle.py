"""Every match ends: the sweeper (a beat task) finds what a dead worker or a lost message left.

A running match past its deadline (start + its game's hard time limit + a grace) had its worker
die or hang: it is queued again while attempts remain, else ended as an unrated platform error
(a validation tells the uploader it was not their fault). A queued match whose task was sent
``ARENA_MATCH_QUEUED_MAX_S`` ago is sent again (the embedded broker loses messages when its
worker is killed). Idempotent: each step re-checks under the match's lock.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from arena.matches.models import Match
from arena.matches.play import RETRY, match_lock, match_platform_failure
from arena.matches.status import match_deadline
from arena.workflows.dispatch import match_enqueue_on_commit
from arena.workflows.submissions import validation_errored

logger = logging.getLogger(__name__)


def matches_sweep() -> dict[str, int]:
    """One sweep; returns how many matches were re-queued, errored and re-sent."""
    counts = {"requeued": 0, "errored": 0, "resent": 0}
    now = timezone.now()
    for match_id in Match.objects.filter(status=Match.Status.RUNNING).values_list("pk", flat=True):
        with transaction.atomic():
            match = match_lock(match_id=match_id)
            if match is None or match.status != Match.Status.RUNNING:
                continue
            deadline = match_deadline(match)
            if deadline is not None and now < deadline:
                continue
            error = f"attempt {match.attempts} overran its deadline (its worker stopped)"
            outcome = match_platform_failure(match=match, error=error)
            if outcome == RETRY:
                match_enqueue_on_commit(match.pk)
                counts["requeued"] += 1
            else:
                counts["errored"] += 1
            if match.kind == Match.Kind.VALIDATION:
                validation_errored(match=match, retrying=outcome == RETRY)
            logger.warning("swept match %s: %s (%s)", match.pk, error, match.status)
    waited = now - timedelta(seconds=settings.ARENA_MATCH_QUEUED_MAX_S)
    lost = Match.objects.filter(status=Match.Status.QUEUED).filter(
        Q(enqueued__lt=waited) | Q(enqueued__isnull=True, created__lt=waited)
    )
    for match_id in lost.values_list("pk", flat=True):
        with transaction.atomic():
            match = match_lock(match_id=match_id)
            if match is None or match.status != Match.Status.QUEUED:
                continue
            match_enqueue_on_commit(match.pk)
            counts["resent"] += 1
    return counts

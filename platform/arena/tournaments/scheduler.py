"""The tournament scheduler: each beat tick moves every tournament along (``docs/tournaments.md``).

Under each tournament's row lock: at ``freeze_at`` it pins each entry's submission and pairs the
first round; each tick it releases games into the ``tournament`` queue while fewer than
``ARENA_TOURNAMENT_IN_FLIGHT`` tournament matches are queued or running (the tournaments' share
of the workers), pairs the next Swiss round once one is over, re-runs a game whose match the
platform failed, and publishes at ``publish_at`` once every game is over. What it reads is in
``selectors.py``, what it writes in ``services.py``; this module only decides the order.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from arena.tournaments.models import Tournament
from arena.tournaments.selectors import all_games_over, round_complete
from arena.tournaments.services import (
    games_release,
    games_rerun_failed,
    swiss_pair_next,
    tournament_publish,
    tournament_set_status,
    tournament_start,
)

logger = logging.getLogger(__name__)


def tournaments_tick() -> dict[str, int]:
    """One pass of the scheduler over every tournament it still has work on; returns what it
    did. The pass holds every such tournament's row lock, so two passes (a late beat message)
    run one after the other and never both fill the same share."""
    counts = {"started": 0, "released": 0, "paired": 0, "finished": 0, "published": 0}
    active = [Tournament.Status.UPCOMING, Tournament.Status.RUNNING, Tournament.Status.FINISHED]
    with transaction.atomic():
        ids = list(
            Tournament.objects.select_for_update()
            .filter(status__in=active)
            .order_by("id")
            .values_list("pk", flat=True)
        )
        for tournament_id in ids:
            try:
                done = tournament_tick(tournament_id=tournament_id)
            except Exception:  # one tournament's bug must not stop the others
                logger.exception("tournament %s: the scheduler failed on it", tournament_id)
                continue
            for key, n in done.items():
                counts[key] = counts.get(key, 0) + n
    return counts


@transaction.atomic
def tournament_tick(*, tournament_id: int) -> dict[str, int]:
    """Move one tournament along (see the module's docstring); idempotent."""
    counts: dict[str, int] = {}
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        return counts
    now = timezone.now()
    if tournament.status == Tournament.Status.UPCOMING:
        if now < tournament.freeze_at:
            return counts
        if not tournament_start(tournament=tournament):
            return counts
        counts["started"] = 1
    if tournament.status == Tournament.Status.RUNNING:
        counts["rerun"] = games_rerun_failed(tournament=tournament)
        if (
            tournament.played_format == Tournament.Format.SWISS
            and tournament.round_current < tournament.rounds_total
            and round_complete(tournament=tournament, round_no=tournament.round_current)
        ):
            swiss_pair_next(tournament=tournament)
            counts["paired"] = 1
        counts["released"] = games_release(tournament=tournament)
        if all_games_over(tournament=tournament) and (
            tournament.played_format != Tournament.Format.SWISS
            or tournament.round_current >= tournament.rounds_total
        ):
            tournament_set_status(
                tournament=tournament, status=Tournament.Status.FINISHED, finished=now
            )
            counts["finished"] = 1
    if tournament.status == Tournament.Status.FINISHED and now >= tournament.publish_at:
        tournament_publish(tournament=tournament)
        counts["published"] = 1
    return counts

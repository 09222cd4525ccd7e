"""The tournament scheduler's beat task: a thin adapter over ``scheduler.tournaments_tick``."""

from __future__ import annotations

import logging

from celery import shared_task

from arena.db_outage import OutageLog, pass_skipped_for_outage
from arena.tournaments.scheduler import tournaments_tick

logger = logging.getLogger(__name__)
#: One line now and then while the database is away, not a traceback every pass.
_outage_log = OutageLog(logger)

TOURNAMENTS_TICK_TASK = "arena.tournaments.tasks.tournaments_tick_task"


@shared_task(name=TOURNAMENTS_TICK_TASK, ignore_result=True)
def tournaments_tick_task() -> dict[str, int]:
    """Freeze, pair, release games within the share, publish: one pass (skipped, in one log
    line now and then, while the database is away: the next pass does its work)."""
    try:
        return tournaments_tick()
    except Exception as exc:
        if pass_skipped_for_outage(_outage_log, "tournaments tick", exc):
            return {}
        raise

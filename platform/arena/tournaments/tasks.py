"""The tournament scheduler's beat task: a thin adapter over ``scheduler.tournaments_tick``."""

from __future__ import annotations

from celery import shared_task

from arena.tournaments.scheduler import tournaments_tick

TOURNAMENTS_TICK_TASK = "arena.tournaments.tasks.tournaments_tick_task"


@shared_task(name=TOURNAMENTS_TICK_TASK, ignore_result=True)
def tournaments_tick_task() -> dict[str, int]:
    """Freeze, pair, release games within the share, publish: one pass."""
    return tournaments_tick()

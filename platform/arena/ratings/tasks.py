"""Periodic matchmaking (Celery beat)."""

from __future__ import annotations

from celery import shared_task

from arena.ratings.services import matchmaking_run


@shared_task(ignore_result=True)
def matchmaking_task() -> int:
    """Pair free ladder entries; returns how many ranked matches were queued."""
    return len(matchmaking_run())

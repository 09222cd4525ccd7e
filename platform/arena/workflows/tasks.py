"""The Celery tasks: thin adapters that call the workflows (names in ``dispatch``)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TypeVar

from celery import shared_task
from django.conf import settings

from arena import metrics
from arena.db_outage import (
    OutageLog,
    database_unreachable,
    database_wait,
    pass_skipped_for_outage,
)
from arena.matches.logstore import match_logs_maintain
from arena.matches.sandboxing import sandboxes_reap
from arena.matches.services import RunOutcome
from arena.ops.services import maintenance_record
from arena.ratings.services import ladders_refit, unified_refit
from arena.workflows.dispatch import MATCH_RUN_TASK, MATCHMAKING_TASK
from arena.workflows.ladder import matchmaking_run
from arena.workflows.lifecycle import matches_sweep
from arena.workflows.matches import match_run

T = TypeVar("T")

logger = logging.getLogger(__name__)
#: One line per match while the database is away, not one per delivery.
_outage_log = OutageLog(logger)


def _database_away(task: str, exc: BaseException) -> bool:
    return pass_skipped_for_outage(_outage_log, task, exc)


def _maintained(
    task: str, run: Callable[[], T], counts: Callable[[T], Mapping[str, int]], skipped: T
) -> T:
    """Run one maintenance pass, counting what it did (metrics, and the operator's page);
    ``skipped`` is its result when the database is away."""
    try:
        result = run()
    except Exception as exc:
        metrics.inc(metrics.MAINTENANCE_RUNS, task=task, result="failed")
        if _database_away(task, exc):
            return skipped  # nowhere to record it: the database is what is away
        maintenance_record(task=task, counts={}, error=f"{type(exc).__name__}: {exc}")
        raise
    done = counts(result)
    metrics.inc(metrics.MAINTENANCE_RUNS, task=task, result="ok")
    for action, count in done.items():
        if count:
            metrics.inc(metrics.MAINTENANCE_ACTIONS, float(count), task=task, action=action)
    maintenance_record(task=task, counts=done)
    return result


@shared_task(
    bind=True,
    name=MATCH_RUN_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,
    ignore_result=True,
)
def match_run_task(self, match_id: int) -> None:  # type: ignore[no-untyped-def]
    """Play match ``match_id`` once (idempotent); a platform error is retried by the service's
    attempt count, after which the match is recorded as an unrated error. The whole chain is
    described in ``arena.workflows.matches``.

    When the database cannot be reached (PostgreSQL restarting), nothing this attempt did can
    be recorded, and a message acknowledged now would be lost with the match left ``queued``
    (or ``running``) for the sweeper. So the task waits, in place and bounded, for the database
    to answer again, and the same task is then delivered again at once: play resumes within
    about a second of the database's return. Its message is acknowledged only once the new one
    is in the broker, and a delivery too many is harmless (``match_begin`` is idempotent)."""
    try:
        outcome = match_run(match_id=match_id, task_id=self.request.id or "")
    except Exception as exc:
        if not database_unreachable(exc):
            raise
        _outage_log(
            logging.WARNING,
            f"match {match_id}",
            "database",
            "match %s: the database cannot be reached (%s); its task waits for it and runs again",
            match_id,
            type(exc).__name__,
        )
        back = database_wait(timeout_s=settings.ARENA_DB_OUTAGE_WAIT_S)
        raise self.retry(
            countdown=0 if back else settings.ARENA_DB_OUTAGE_RETRY_S, exc=exc
        ) from None
    if outcome is RunOutcome.RETRY:
        raise self.retry(countdown=3)


@shared_task(name=MATCHMAKING_TASK, ignore_result=True)
def matchmaking_task() -> int:
    """Pair free ladder entries; returns how many ranked matches were queued."""
    try:
        with metrics.timed(metrics.MATCHMAKING_PASS):
            pairs = len(matchmaking_run())
    except Exception as exc:
        if _database_away("matchmaking", exc):
            return 0
        raise
    metrics.inc(metrics.MATCHMAKING_PAIRS, float(pairs))
    return pairs


@shared_task(ignore_result=True)
def match_logs_maintain_task() -> None:
    """Pack leftover event rows of finished matches and apply the ranked log retention."""
    match_logs_maintain()


@shared_task(name="arena.workflows.tasks.matches_sweep_task", ignore_result=True)
def matches_sweep_task() -> dict[str, int]:
    """Every match ends: re-queue or error overdue ones, send lost ones again."""
    return _maintained("sweeper", matches_sweep, lambda counts: counts, skipped={})


@shared_task(name="arena.workflows.tasks.sandboxes_reap_task", ignore_result=True)
def sandboxes_reap_task() -> int:
    """Remove sandbox containers whose match is over or whose worker is gone."""
    return _maintained("reaper", sandboxes_reap, lambda removed: {"removed": removed}, skipped=0)


@shared_task(name="arena.workflows.tasks.unified_refit_task", ignore_result=True)
def unified_refit_task() -> int:
    """Fit the boards across games again (``ratings.services.unified_refit``); returns the
    matches behind the fit."""
    return _maintained(
        "unified-boards", lambda: unified_refit().matches, lambda n: {"matches": n}, skipped=0
    )


@shared_task(name="arena.workflows.tasks.ladders_refit_task", ignore_result=True)
def ladders_refit_task() -> int:
    """Refit every ladder that played since its last fit (``ratings.services.ladders_refit``):
    the ratings and intervals the leaderboards show; returns the matches behind the fits."""
    return _maintained("ladder-refits", ladders_refit, lambda n: {"matches": n}, skipped=0)

"""The Celery tasks: thin adapters that call the workflows (names in ``dispatch``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

from celery import shared_task

from arena import metrics
from arena.matches.logstore import match_logs_maintain
from arena.matches.play import RunOutcome
from arena.matches.sandboxing import sandboxes_reap
from arena.ops.services import maintenance_record
from arena.ratings.services import unified_refit
from arena.workflows.dispatch import MATCH_RUN_TASK, MATCHMAKING_TASK
from arena.workflows.ladder import matchmaking_run
from arena.workflows.lifecycle import matches_sweep
from arena.workflows.matches import match_run

T = TypeVar("T")


def _maintained(task: str, run: Callable[[], T], counts: Callable[[T], Mapping[str, int]]) -> T:
    """Run one maintenance pass, counting what it did (metrics, and the operator's page)."""
    try:
        result = run()
    except Exception as exc:
        metrics.inc(metrics.MAINTENANCE_RUNS, task=task, result="failed")
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
    described in ``arena.workflows.matches``."""
    if match_run(match_id=match_id, task_id=self.request.id or "") is RunOutcome.RETRY:
        raise self.retry(countdown=3)


@shared_task(name=MATCHMAKING_TASK, ignore_result=True)
def matchmaking_task() -> int:
    """Pair free ladder entries; returns how many ranked matches were queued."""
    with metrics.timed(metrics.MATCHMAKING_PASS):
        pairs = len(matchmaking_run())
    metrics.inc(metrics.MATCHMAKING_PAIRS, float(pairs))
    return pairs


@shared_task(ignore_result=True)
def match_logs_maintain_task() -> None:
    """Pack leftover event rows of finished matches and apply the ranked log retention."""
    match_logs_maintain()


@shared_task(name="arena.workflows.tasks.matches_sweep_task", ignore_result=True)
def matches_sweep_task() -> dict[str, int]:
    """Every match ends: re-queue or error overdue ones, send lost ones again."""
    return _maintained("sweeper", matches_sweep, lambda counts: counts)


@shared_task(name="arena.workflows.tasks.sandboxes_reap_task", ignore_result=True)
def sandboxes_reap_task() -> int:
    """Remove sandbox containers whose match is over or whose worker is gone."""
    return _maintained("reaper", sandboxes_reap, lambda removed: {"removed": removed})


@shared_task(name="arena.workflows.tasks.unified_refit_task", ignore_result=True)
def unified_refit_task() -> int:
    """Fit the boards across games again (``ratings.services.unified_refit``); returns the
    matches behind the fit."""
    return _maintained("unified-boards", lambda: unified_refit().matches, lambda n: {"matches": n})

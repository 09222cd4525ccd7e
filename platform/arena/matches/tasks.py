"""The match task: validation, training and ranked matches all run here."""

from __future__ import annotations

from celery import shared_task

from arena.matches.logstore import match_logs_maintain
from arena.matches.services import RETRY, match_run


@shared_task(
    bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None, ignore_result=True
)
def match_run_task(self, match_id: int) -> None:  # type: ignore[no-untyped-def]
    """Play match ``match_id`` once (idempotent); a platform error is retried by the service's
    attempt count, after which the match is recorded as an unrated error."""
    if match_run(match_id=match_id) == RETRY:
        raise self.retry(countdown=3)


@shared_task(ignore_result=True)
def match_logs_maintain_task() -> None:
    """Pack leftover event rows of finished matches and apply the ranked log retention."""
    match_logs_maintain()

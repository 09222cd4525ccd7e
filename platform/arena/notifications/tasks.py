"""The delivery task: one email or webhook post, retried with back-off, sent at most once."""

from __future__ import annotations

import logging

from celery import shared_task

from arena.notifications.services import DELIVER_TASK, delivery_give_up, delivery_send

logger = logging.getLogger(__name__)

MAX_RETRIES = 5


@shared_task(
    bind=True, name=DELIVER_TASK, acks_late=True, max_retries=MAX_RETRIES, ignore_result=True
)
def delivery_send_task(self, delivery_id: int) -> None:  # type: ignore[no-untyped-def]
    """Send delivery ``delivery_id``; on failure retry in 10 s, 20 s, 40 s… then give up."""
    try:
        delivery_send(delivery_id=delivery_id)
    except Exception as exc:
        if self.request.retries >= MAX_RETRIES or self.request.is_eager:
            logger.warning("notification delivery %s failed for good: %s", delivery_id, exc)
            delivery_give_up(delivery_id=delivery_id)
            return
        raise self.retry(countdown=10 * 2**self.request.retries) from exc

"""What a worker node does for its operators: heartbeat, warm-shutdown notice, metrics port.

``arena.celery_app`` connects these to Celery's worker signals (main process only).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings

from arena.ops.heartbeat import heartbeat_current, heartbeat_start, heartbeat_stop

logger = logging.getLogger(__name__)


def _consumed_queues(consumer: Any) -> list[str]:
    try:
        return [str(q.name) for q in consumer.task_consumer.queues]
    except Exception:
        return []


def worker_started(consumer: Any) -> None:
    """The worker is ready: start its heartbeat (and its metrics port when one is set)."""
    from celery.worker.state import active_requests

    try:
        concurrency = int(getattr(consumer.controller, "concurrency", 0) or 0)
    except Exception:
        concurrency = 0
    from arena.metrics import prune_dead_processes

    prune_dead_processes()
    heartbeat_start(
        hostname=str(consumer.hostname),
        queues=lambda: _consumed_queues(consumer),
        active=lambda: list(active_requests),
        concurrency=concurrency,
    )
    if settings.ARENA_METRICS_PORT:
        from arena.ops.exposition import exporter_start

        try:
            exporter_start(port=settings.ARENA_METRICS_PORT)
            logger.warning("metrics served on port %d", settings.ARENA_METRICS_PORT)
        except OSError as exc:
            logger.error("metrics port %d not served: %s", settings.ARENA_METRICS_PORT, exc)


def worker_stopping() -> None:
    """SIGTERM: the node takes no more tasks; readiness stops counting it."""
    beat = heartbeat_current()
    if beat is not None:
        beat.mark_stopping()


def worker_stopped() -> None:
    heartbeat_stop()

"""Bounded probes of the parts the platform stands on: the database, the broker, the workers.

Each answers within ``ARENA_PROBE_TIMEOUT_S`` (a dead Redis or PostgreSQL must not hang a probe)
and never raises: a probe that fails says ``False`` or ``None``, with the reason logged.
"""

from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from arena.celery_app import worker_queues
from arena.ops.models import WorkerHeartbeat

logger = logging.getLogger(__name__)

#: kombu's Redis transport keeps a queue's prioritised messages in keys ``<queue>\x06\x16<n>``.
_REDIS_PRIORITY_SEP = "\x06\x16"
_REDIS_PRIORITY_STEPS = (3, 6, 9)

# One thread for the database probe, so a connect that hangs is abandoned after the timeout.
_DB_EXECUTOR = ThreadPoolExecutor(max_workers=2, thread_name_prefix="arena-probe-db")


def _redis_client() -> Any:
    import redis

    timeout_s = settings.ARENA_PROBE_TIMEOUT_S
    return redis.Redis.from_url(
        settings.CELERY_BROKER_URL,
        socket_timeout=timeout_s,
        socket_connect_timeout=timeout_s,
        retry_on_timeout=False,
    )


def _uses_redis() -> bool:
    return str(settings.CELERY_BROKER_URL).startswith(("redis://", "rediss://", "unix://"))


def _db_ping() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return bool(cursor.fetchone() == (1,))
    finally:
        # This thread's connection is its own: close it so none is left behind.
        connection.close()


def database_ok() -> bool:
    """The database answers a query within the probe timeout."""
    future = _DB_EXECUTOR.submit(_db_ping)
    try:
        return bool(future.result(timeout=settings.ARENA_PROBE_TIMEOUT_S))
    except FutureTimeout:
        logger.warning("readiness: the database did not answer in time")
        return False
    except Exception as exc:
        logger.warning("readiness: the database failed: %s", type(exc).__name__)
        return False


def broker_ok() -> bool:
    """The broker answers (Redis: PING; the filesystem broker: its queue folder exists)."""
    try:
        if _uses_redis():
            return bool(_redis_client().ping())
        folder = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("data_folder_in", "")
        return bool(folder) and os.access(str(folder), os.W_OK)
    except Exception as exc:
        logger.warning("readiness: the broker failed: %s", type(exc).__name__)
        return False


def queue_depths() -> dict[str, int] | None:
    """Messages waiting in each queue the workers consume, or ``None`` when the broker cannot
    be read in time."""
    queues = worker_queues()
    try:
        if _uses_redis():
            pipe = _redis_client().pipeline(transaction=False)
            for queue in queues:
                pipe.llen(queue)
                for step in _REDIS_PRIORITY_STEPS:
                    pipe.llen(f"{queue}{_REDIS_PRIORITY_SEP}{step}")
            lengths = pipe.execute()
            per = 1 + len(_REDIS_PRIORITY_STEPS)
            return {q: int(sum(lengths[i * per : (i + 1) * per])) for i, q in enumerate(queues)}
        folder = str(settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("data_folder_in", ""))
        names = os.listdir(folder)
        return {q: sum(1 for n in names if n.endswith(f".{q}.msg")) for q in queues}
    except Exception as exc:
        logger.warning("queue depth unknown: %s", type(exc).__name__)
        return None


def live_workers() -> list[WorkerHeartbeat]:
    """Workers whose heartbeat is younger than ``ARENA_READY_WORKER_MAX_AGE_S`` and that are
    not shutting down."""
    fresh = timezone.now() - timedelta(seconds=settings.ARENA_READY_WORKER_MAX_AGE_S)
    return list(WorkerHeartbeat.objects.filter(last_seen__gte=fresh, stopping=False))


def uncovered_queues(workers: list[WorkerHeartbeat]) -> list[str]:
    """The queues no live worker consumes."""
    covered = {str(q) for w in workers for q in (w.queues or [])}
    return [q for q in worker_queues() if q not in covered]


def readiness() -> dict[str, bool]:
    """Each check of ``/readyz``: ``database``, ``broker``, ``workers`` (every queue has a live
    worker). The worker check reads the database, so it fails with it."""
    checks = {"database": database_ok(), "broker": broker_ok(), "workers": False}
    if checks["database"]:
        future = _DB_EXECUTOR.submit(_workers_cover_queues)
        try:
            checks["workers"] = bool(future.result(timeout=settings.ARENA_PROBE_TIMEOUT_S))
        except Exception as exc:
            logger.warning("readiness: the workers could not be read: %s", type(exc).__name__)
    return checks


def _workers_cover_queues() -> bool:
    try:
        return not uncovered_queues(live_workers())
    finally:
        connection.close()

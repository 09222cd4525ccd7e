"""Writes of the ops app: worker heartbeats and maintenance records."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime

from django.utils import timezone

from arena.ops.models import MaintenanceRun, WorkerHeartbeat

logger = logging.getLogger(__name__)

#: Maintenance records kept (the newest); older ones are pruned as new ones come.
MAINTENANCE_KEEP = 200


def heartbeat_record(
    *,
    hostname: str,
    queues: Sequence[str],
    running_matches: Sequence[int],
    concurrency: int,
    pid: int,
    started: datetime,
    stopping: bool = False,
) -> WorkerHeartbeat:
    """Store one worker's beat (one row per worker node, updated in place)."""
    beat, _ = WorkerHeartbeat.objects.update_or_create(
        hostname=hostname[:255],
        defaults={
            "queues": sorted(set(queues)),
            "running_matches": sorted(set(running_matches)),
            "concurrency": concurrency,
            "pid": pid,
            "started": started,
            "last_seen": timezone.now(),
            "stopping": stopping,
        },
    )
    assert isinstance(beat, WorkerHeartbeat)
    return beat


def heartbeat_remove(*, hostname: str) -> None:
    """A worker that stopped cleanly leaves the list at once."""
    WorkerHeartbeat.objects.filter(hostname=hostname[:255]).delete()


def maintenance_record(*, task: str, counts: Mapping[str, int], error: str = "") -> None:
    """Keep what a maintenance pass did, when it did anything or failed (never raises)."""
    done = {str(k): int(v) for k, v in counts.items() if v}
    if not done and not error:
        return
    try:
        MaintenanceRun.objects.create(
            task=task[:32], at=timezone.now(), counts=done, error=error[:500]
        )
        stale = MaintenanceRun.objects.order_by("-at").values_list("pk", flat=True)[
            MAINTENANCE_KEEP : MAINTENANCE_KEEP + 100
        ]
        if stale:
            MaintenanceRun.objects.filter(pk__in=list(stale)).delete()
    except Exception:  # a record is for the operator's page: never worth failing the pass
        logger.warning("maintenance record of %s not stored", task, exc_info=True)

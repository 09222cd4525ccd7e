"""Reads for the operator's page."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from arena.celery_app import worker_queues
from arena.matches.models import Match
from arena.ops import probes
from arena.ops.models import MaintenanceRun, WorkerHeartbeat

#: Matches per minute are averaged over this window.
RATE_WINDOW_MIN = 10


@dataclass(frozen=True)
class WorkerRow:
    hostname: str
    queues: list[str]
    concurrency: int
    running_matches: list[int]
    last_seen_s: float
    live: bool
    stopping: bool


def model_seat_spend() -> list[dict[str, Any]]:
    """HOOK for language-model seats: their spend (per model, today) once the ``arena.llm`` app
    exists. Until then there are no model seats and nothing to show.

    The ``arena.llm`` app should provide ``arena.llm.selectors.spend_today() -> list[dict]``
    (``model``, ``calls``, ``tokens``, ``cost``); this function returns it when it is there.
    """
    try:
        from importlib import import_module

        llm = import_module("arena.llm.selectors")
    except ImportError:
        return []
    spend = getattr(llm, "spend_today", None)
    return list(spend()) if callable(spend) else []


def ops_overview() -> dict[str, Any]:
    """Everything the operator's page shows (each probe bounded)."""
    now = timezone.now()
    max_age_s = settings.ARENA_READY_WORKER_MAX_AGE_S
    workers = [
        WorkerRow(
            hostname=w.hostname,
            queues=list(w.queues or []),
            concurrency=w.concurrency,
            running_matches=list(w.running_matches or []),
            last_seen_s=(now - w.last_seen).total_seconds(),
            live=(now - w.last_seen).total_seconds() <= max_age_s and not w.stopping,
            stopping=w.stopping,
        )
        for w in WorkerHeartbeat.objects.order_by("hostname")
    ]
    depths = probes.queue_depths()
    live = [w for w in workers if w.live]
    queues = [
        {
            "name": queue,
            "depth": None if depths is None else depths.get(queue),
            "workers": sum(1 for w in live if queue in w.queues),
        }
        for queue in worker_queues()
    ]
    since = now - timedelta(minutes=RATE_WINDOW_MIN)
    finished = Match.objects.filter(finished__gte=since, status=Match.Status.FINISHED).count()
    errors = list(
        Match.objects.exclude(error="")
        .order_by("-pk")
        .values("pk", "kind", "game", "status", "attempts", "error", "finished")[:20]
    )
    return {
        "queues": queues,
        "broker_answers": depths is not None,
        "workers": workers,
        "matches_per_min": finished / RATE_WINDOW_MIN,
        "rate_window_min": RATE_WINDOW_MIN,
        "running": Match.objects.filter(status=Match.Status.RUNNING).count(),
        "queued": Match.objects.filter(status=Match.Status.QUEUED).count(),
        "errors": errors,
        "maintenance": list(MaintenanceRun.objects.order_by("-at")[:30]),
        "model_spend": model_seat_spend(),
    }


def nodes_of_processes(*, pids: Collection[int], host: str) -> list[str]:
    """The node names of the heartbeat rows written by worker processes ``pids`` of ``host``
    (``make run``'s own workers, for its clean stop)."""
    rows = WorkerHeartbeat.objects.filter(pid__in=list(pids)).values_list("hostname", flat=True)
    return [name for name in rows if name.endswith(f"@{host}")]


def matches_claimed_by_other_nodes(*, besides: Collection[str]) -> set[int]:
    """Match ids that live worker nodes (a heartbeat within three periods) other than the nodes
    ``besides`` say they are playing."""
    fresh = timezone.now() - timedelta(seconds=3 * settings.ARENA_WORKER_HEARTBEAT_S)
    rows = (
        WorkerHeartbeat.objects.filter(last_seen__gte=fresh)
        .exclude(hostname__in=list(besides))
        .values_list("running_matches", flat=True)
    )
    return {int(m) for matches in rows for m in matches or [] if str(m).isdigit()}

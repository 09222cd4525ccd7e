"""Gauges about the whole platform, computed when ``/metrics`` is scraped (bounded probes)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

from django.conf import settings
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from arena.ops import probes

logger = logging.getLogger(__name__)


def queue_label(queue: str) -> str:
    """A queue's label in the metrics: its role (``matches``, ``training``, ...), without this
    instance's prefix (``<ARENA_INSTANCE_ID>.``), so dashboards work for every instance."""
    prefix = f"{settings.ARENA_INSTANCE_ID}."
    return queue[len(prefix) :] if queue.startswith(prefix) else queue


class PlatformCollector(Collector):
    """Queue depth per queue, live workers per queue, matches the workers are playing, and
    whether each part answers."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        depth = GaugeMetricFamily(
            "arena_queue_depth", "Messages waiting in a queue", labels=["queue"]
        )
        for queue, count in (probes.queue_depths() or {}).items():
            depth.add_metric([queue_label(queue)], count)
        yield depth
        up = GaugeMetricFamily(
            "arena_part_up", "1 when a part the platform needs answers", labels=["part"]
        )
        checks = probes.readiness()
        for part, ok in checks.items():
            up.add_metric([part], 1.0 if ok else 0.0)
        yield up
        workers = GaugeMetricFamily(
            "arena_workers_live",
            "Worker nodes with a fresh heartbeat consuming a queue",
            labels=["queue"],
        )
        running = GaugeMetricFamily(
            "arena_matches_running", "Matches the live workers reported playing"
        )
        try:
            live = probes.live_workers() if checks["database"] else []
        except Exception as exc:
            logger.warning("live workers unknown: %s", type(exc).__name__)
            live = []
        per_queue: dict[str, int] = {}
        for worker in live:
            for queue in worker.queues or []:
                label = queue_label(str(queue))
                per_queue[label] = per_queue.get(label, 0) + 1
        for queue, count in sorted(per_queue.items()):
            workers.add_metric([queue], count)
        running.add_metric([], sum(len(w.running_matches or []) for w in live))
        yield workers
        yield running

"""The platform's Prometheus metrics (docs/operations.md lists them).

Every process of a host (gunicorn's workers, Celery's pool children, beat) writes its counters to
files in one folder, ``ARENA_METRICS_DIR`` (prometheus-client's multiprocess mode), and whoever
serves ``/metrics`` (the web, or a worker's own exporter port on a host without web) adds up the
files of that folder. Prefork children need nothing of their own: a forked child writes to its
own file. Gauges that describe the whole platform (queue depth, live workers) are computed when
they are scraped (``arena.ops.collectors``), never kept in a process.

This module only defines the metrics and small helpers that never raise: a metric that cannot
be written must not break a match or a page.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from time import perf_counter

from django.conf import settings

logger = logging.getLogger(__name__)


def _multiprocess_dir() -> str:
    """The folder every process of this host writes its metrics to, made to exist.

    prometheus-client picks multiprocess mode from ``PROMETHEUS_MULTIPROC_DIR`` when it is
    imported: set here, before the import below (nothing else in the platform imports it), from
    the setting, so that an inherited variable can never point two instances at one folder.
    """
    folder = str(settings.ARENA_METRICS_DIR)
    Path(folder).mkdir(parents=True, exist_ok=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
    return folder


METRICS_DIR = _multiprocess_dir()

from prometheus_client import Counter, Histogram  # noqa: E402  (after the folder is chosen)

#: Seconds buckets for calls, container starts and passes (a call's budget is 2 s).
FAST_BUCKETS_S = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0)
#: Seconds buckets for whole matches (a poker match with slow agents takes minutes).
MATCH_BUCKETS_S = (1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 3600)

MATCHES_STARTED = Counter(
    "arena_matches_started", "Match attempts started by a worker", ["kind", "game"]
)
MATCHES_FINISHED = Counter("arena_matches_finished", "Matches played to a result", ["kind", "game"])
MATCHES_ERRORED = Counter(
    "arena_matches_errored", "Matches ended as an unrated platform error", ["kind", "game"]
)
MATCHES_REQUEUED = Counter(
    "arena_matches_requeued", "Match attempts handed back to the queue", ["kind", "game"]
)
MATCH_DURATION = Histogram(
    "arena_match_duration_seconds",
    "Length of a finished match as the referee measured it",
    ["kind", "game"],
    buckets=MATCH_BUCKETS_S,
)
CALL_LATENCY = Histogram(
    "arena_call_latency_seconds",
    "Wall time the platform waited for one agent call",
    ["game"],
    buckets=FAST_BUCKETS_S,
)
CALL_CHARGED = Histogram(
    "arena_call_charged_seconds",
    "Time charged to the agent for one call (its own window, what the budget counts)",
    ["game"],
    buckets=FAST_BUCKETS_S,
)
FORFEITS = Counter("arena_forfeits", "Seats that forfeited a finished match", ["game", "reason"])
MATCHMAKING_PASS = Histogram(
    "arena_matchmaking_pass_seconds", "Length of one matchmaking pass", buckets=FAST_BUCKETS_S
)
MATCHMAKING_PAIRS = Counter("arena_matchmaking_pairs", "Ranked matches queued by matchmaking")
CONTAINER_START = Histogram(
    "arena_sandbox_container_start_seconds",
    "Time to create and start one agent container",
    buckets=FAST_BUCKETS_S,
)
POOL_TAKES = Counter(
    "arena_sandbox_pool_takes", "Sandboxes asked of the warm pool, by result", ["result"]
)
FREEZES = Counter(
    "arena_sandbox_freezes", "Waiting agents frozen, by the path that froze them", ["path"]
)
MAINTENANCE_ACTIONS = Counter(
    "arena_maintenance_actions",
    "What the sweeper and the reaper did (matches re-queued, errored, re-sent; sandboxes removed)",
    ["task", "action"],
)
MAINTENANCE_RUNS = Counter(
    "arena_maintenance_runs", "Maintenance passes run, by task and result", ["task", "result"]
)
THROTTLED = Counter(
    "arena_throttled_requests", "Requests refused by a limit (429 or 413)", ["limit"]
)


def prune_dead_processes(folder: str | None = None) -> int:
    """Remove the metric files of this host's processes that are gone (their pid is in the
    file's name); returns how many. Their counts leave the sums: Prometheus reads that as a
    counter reset, which its ``rate()`` handles. Without this the folder grows with every
    restarted process and every scrape reads them all."""
    removed = 0
    for path in Path(folder or METRICS_DIR).glob("*_*.db"):
        pid = path.stem.rpartition("_")[2]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            path.unlink(missing_ok=True)
            removed += 1
        except OSError:
            continue  # alive, someone else's
    return removed


def inc(counter: Counter, amount: float = 1.0, **labels: str) -> None:
    """Add to a counter; never raises."""
    try:
        (counter.labels(**labels) if labels else counter).inc(amount)
    except Exception:
        logger.debug("metric %s not counted", counter, exc_info=True)


def observe(histogram: Histogram, value_s: float, **labels: str) -> None:
    """Record one observation; never raises."""
    try:
        (histogram.labels(**labels) if labels else histogram).observe(value_s)
    except Exception:
        logger.debug("metric %s not observed", histogram, exc_info=True)


@contextmanager
def timed(histogram: Histogram, **labels: str) -> Iterator[None]:
    """Observe how long the block took (also when it raises)."""
    start = perf_counter()
    try:
        yield
    finally:
        observe(histogram, perf_counter() - start, **labels)

"""The Celery app. Configuration comes from Django settings (``CELERY_*``)."""

from __future__ import annotations

import logging
import os
import warnings
from typing import Any

from celery import Celery
from celery.signals import (
    worker_process_init,
    worker_process_shutdown,
    worker_ready,
    worker_shutdown,
    worker_shutting_down,
)
from celery.worker.consumer import Consumer as CeleryConsumer

from arena.ops.process import freeze_startup_objects

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def worker_queues() -> list[str]:
    """Every queue the settings declare: ``ARENA_WORKER_QUEUES`` where set, the default queue,
    each queue ``CELERY_TASK_ROUTES`` sends a task to, and ``CELERY_TASK_QUEUES``. A worker that
    consumes these runs every kind of task; ``make run`` and the worker image start theirs on
    all of them."""
    from django.conf import settings

    names = [str(q) for q in getattr(settings, "ARENA_WORKER_QUEUES", None) or []]
    names.append(getattr(settings, "CELERY_TASK_DEFAULT_QUEUE", "celery") or "celery")
    routes = getattr(settings, "CELERY_TASK_ROUTES", None) or {}
    # A mapping of task names (or globs) to routes, or a list of such mappings.
    for table in [routes] if isinstance(routes, dict) else list(routes):
        for route in table.values() if isinstance(table, dict) else []:
            queue = route.get("queue") if isinstance(route, dict) else route
            if queue:
                names.append(str(getattr(queue, "name", queue)))
    for queue in getattr(settings, "CELERY_TASK_QUEUES", None) or []:
        names.append(str(getattr(queue, "name", queue)))
    return list(dict.fromkeys(names))


def _ensure_broker_dirs() -> None:
    # kombu's filesystem transport expects its folders to exist.
    from django.conf import settings

    options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {})
    for key in ("data_folder_in", "data_folder_out", "processed_folder", "control_folder"):
        if key in options:
            os.makedirs(options[key], exist_ok=True)


def _quiet_root_warning() -> None:
    # ``make run`` said it once for all its pools (``ARENA_ROOT_WARNED``).
    from django.conf import settings

    if getattr(settings, "ARENA_ROOT_WARNED", False):
        warnings.filterwarnings(
            "ignore", message="You're running the worker with superuser privileges"
        )


if os.environ.get("DJANGO_SETTINGS_MODULE"):
    try:
        _quiet_root_warning()
        _ensure_broker_dirs()
    except Exception:  # settings not importable yet: the worker's start will say why
        logging.getLogger(__name__).debug("broker folders not prepared", exc_info=True)

logger = logging.getLogger(__name__)


@worker_ready.connect
def _on_worker_ready(sender: object = None, **_: object) -> None:
    """Clean up what a dead worker left (agent containers) and say which sandbox runs agents;
    start the node's heartbeat (docs/operations.md)."""
    from arena.matches.sandboxing import remove_orphaned_agents, sandbox_backend
    from arena.ops.worker import worker_started

    worker_started(sender)

    removed = remove_orphaned_agents()
    if removed:
        logger.warning("removed %d orphaned agent sandboxes", removed)
    logger.warning("uploaded agents run in the %s sandbox", sandbox_backend())
    # A threads or solo pool runs its tasks here; a prefork pool's children freeze their own.
    freeze_startup_objects()


@worker_process_init.connect
def _on_worker_process_init(**_: object) -> None:
    """Each worker process keeps its own warm pool of sandboxes, filled in the background."""
    from arena.matches.sandboxing import start_pool

    start_pool()
    freeze_startup_objects()


@worker_process_shutdown.connect
@worker_shutdown.connect
def _on_worker_process_shutdown(**_: object) -> None:
    """Remove the idle sandboxes of this process's warm pool."""
    from arena.matches.sandboxing import drain_pool

    drain_pool()


@worker_shutting_down.connect
def _on_worker_shutting_down(**_: object) -> None:
    """Warm shutdown began: the node's heartbeat says it is stopping."""
    from arena.ops.worker import worker_stopping

    worker_stopping()


@worker_shutdown.connect
def _on_worker_node_shutdown(**_: object) -> None:
    """The node is gone: its heartbeat row goes too."""
    from arena.ops.worker import worker_stopped

    worker_stopped()


class Consumer(CeleryConsumer):  # type: ignore[misc]  # Celery has no type hints
    """Celery's consumer, reconnecting to a broker that went away every
    ``ARENA_BROKER_RECONNECT_MAX_S`` at most.

    kombu's default waits 2 s, 4 s, 6 s, … up to 30 s between attempts: a worker whose Redis
    was away for 20 s came back about 30 s after Redis did (and up to 30 s late after any longer
    outage), while a refused connection costs nothing to try again. Celery takes it from
    ``CELERY_WORKER_CONSUMER``.
    """

    def ensure_connected(self, conn: Any) -> Any:
        from django.conf import settings

        ensure = conn.ensure_connection
        most_s = float(getattr(settings, "ARENA_BROKER_RECONNECT_MAX_S", 2.0))

        def ensure_connection(*args: Any, **kwargs: Any) -> Any:
            kwargs.setdefault("interval_start", min(0.5, most_s))
            kwargs.setdefault("interval_step", min(0.5, most_s))
            kwargs.setdefault("interval_max", most_s)
            return ensure(*args, **kwargs)

        conn.ensure_connection = ensure_connection
        return super().ensure_connected(conn)

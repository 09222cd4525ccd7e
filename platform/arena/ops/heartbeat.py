"""A worker node's heartbeat: a thread in the worker's main process writes, every
``ARENA_WORKER_HEARTBEAT_S``, the queues it consumes and the matches its pool is playing (those
of its active tasks that the database says run under that task now).

``/readyz`` and the operator's page read it; a node that stops cleanly (warm shutdown) says so
at once (``stopping``) and removes its row when it is gone. A beat that cannot be written
(database away) is retried at the next period: the thread never dies of it.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

from arena.matches.selectors import matches_running_among
from arena.ops.services import heartbeat_record, heartbeat_remove

logger = logging.getLogger(__name__)

MATCH_TASK_SUFFIX = "match_run_task"


def running_match_ids(requests: Iterable[Any]) -> list[int]:
    """The match ids among a worker's active requests (Celery's ``Request`` objects)."""
    ids: list[int] = []
    for request in list(requests):
        try:
            if not str(getattr(request, "name", "") or "").endswith(MATCH_TASK_SUFFIX):
                continue
            args = request.args or ()
            kwargs = request.kwargs or {}
            match_id = args[0] if args else kwargs.get("match_id")
            if match_id is not None:
                ids.append(int(match_id))
        except Exception:  # a malformed request never breaks the beat
            logger.debug("an active request without a match id", exc_info=True)
    return ids


def _close_connection() -> None:
    """Drop this thread's database connection (a broken one is opened afresh next beat)."""
    try:
        connection.close()
    except Exception:
        logger.debug("closing the heartbeat's connection failed", exc_info=True)


class Heartbeat:
    """The beat of one worker node (one per worker main process)."""

    def __init__(
        self,
        *,
        hostname: str,
        queues: Callable[[], list[str]],
        active: Callable[[], Iterable[Any]],
        concurrency: int,
        period_s: float | None = None,
    ) -> None:
        self.hostname = hostname
        self._queues = queues
        self._active = active
        self.concurrency = concurrency
        self.period_s = period_s or settings.ARENA_WORKER_HEARTBEAT_S
        self.started: datetime = timezone.now()
        self.stopping = False
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def beat(self) -> bool:
        """Write one beat now; False (logged) when it could not be written."""
        try:
            close_old_connections()
            active = list(self._active())
            heartbeat_record(
                hostname=self.hostname,
                queues=self._queues(),
                # Rebuilt every beat from what runs now: Celery's list of active requests can
                # keep a task whose end it missed (its broker connection broke meanwhile).
                running_matches=matches_running_among(
                    match_ids=running_match_ids(active),
                    task_ids=[str(getattr(r, "id", "") or "") for r in active],
                ),
                concurrency=self.concurrency,
                pid=os.getpid(),
                started=self.started,
                stopping=self.stopping,
            )
            return True
        except Exception as exc:
            logger.warning("heartbeat of %s not written: %s", self.hostname, exc)
            _close_connection()
            return False

    def _run(self) -> None:
        while not self._stop.is_set():
            self.beat()
            self._wake.wait(self.period_s)
            self._wake.clear()
        _close_connection()

    def start(self) -> Heartbeat:
        self._thread = threading.Thread(target=self._run, name="arena-heartbeat", daemon=True)
        self._thread.start()
        return self

    def mark_stopping(self) -> None:
        """Warm shutdown began: say so at once, so readiness stops counting this node. (Called
        from a signal handler: the beat is written by the heartbeat's own thread.)"""
        self.stopping = True
        self._wake.set()

    def stop(self) -> None:
        """The node is gone: stop beating and remove its row."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=self.period_s + 5)
        try:
            close_old_connections()
            heartbeat_remove(hostname=self.hostname)
        except Exception as exc:
            logger.warning("heartbeat of %s not removed: %s", self.hostname, exc)


_current: Heartbeat | None = None


def heartbeat_start(**kwargs: Any) -> Heartbeat:
    """Start this process's heartbeat (replacing one started before)."""
    global _current
    if _current is not None:
        _current.stop()
    _current = Heartbeat(**kwargs).start()
    return _current


def heartbeat_current() -> Heartbeat | None:
    return _current


def heartbeat_stop() -> None:
    global _current
    beat, _current = _current, None
    if beat is not None:
        beat.stop()

"""What a worker does while the database is away: recognise it, wait for it, say so once.

A PostgreSQL restart cuts every connection and refuses new ones for a while. A match task that
meets it has recorded nothing (or nothing it can keep), so its message must outlive the outage:
``database_wait`` lets it wait, bounded, for the database to answer again, after which the task
is delivered again (``workflows.tasks.match_run_task``). ``OutageLog`` keeps the log readable
meanwhile: one line per match and cause, then silence for a while, instead of a traceback for
every log entry that could not be stored.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from django.db import InterfaceError, OperationalError, close_old_connections, connection

logger = logging.getLogger(__name__)

#: What Django raises when the database refuses, drops or never answers a connection (and for a
#: locked SQLite file, which is worth waiting for too).
DATABASE_ERRORS: tuple[type[BaseException], ...] = (OperationalError, InterfaceError)


def database_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) is the database being away, not a bug."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, DATABASE_ERRORS):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _drop_connection() -> None:
    """Forget this thread's connection: a broken one is opened afresh on the next query."""
    try:
        connection.close()
    except Exception:  # closing a connection the server already dropped may fail too
        logger.debug("closing a broken database connection failed", exc_info=True)


def database_wait(
    *,
    timeout_s: float,
    first_delay_s: float = 0.25,
    max_delay_s: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
) -> bool:
    """Wait until the database answers again, at most ``timeout_s``: True once it does.

    Probes with a fresh connection (cheap: a refused one fails at once), backing off from
    ``first_delay_s`` to ``max_delay_s`` between probes, so that a task resumes within about a
    second of the database's return.
    """
    deadline = time.monotonic() + timeout_s
    delay = first_delay_s
    while True:
        _drop_connection()
        try:
            connection.ensure_connection()
            close_old_connections()
            return True
        except DATABASE_ERRORS:
            pass
        left = deadline - time.monotonic()
        if left <= 0:
            _drop_connection()
            return False
        sleep(min(delay, left))
        delay = min(delay * 2, max_delay_s)


class OutageLog:
    """One log line per (subject, cause), then nothing about it for ``every_s`` seconds but a
    count of what was left out, given with the next line. Thread-safe; never raises."""

    def __init__(self, log: logging.Logger, *, every_s: float = 60.0) -> None:
        self.log = log
        self.every_s = every_s
        self._last: dict[tuple[str, str], tuple[float, int]] = {}
        self._lock = threading.Lock()

    def __call__(self, level: int, subject: str, cause: str, message: str, *args: object) -> bool:
        """Log ``message % args`` about ``subject`` unless the same subject and cause were
        logged less than ``every_s`` ago (then only counted). True when it was logged."""
        key = (subject, cause)
        now = time.monotonic()
        with self._lock:
            last = self._last.get(key)
            if last is not None and now - last[0] < self.every_s:
                self._last[key] = (last[0], last[1] + 1)
                return False
            left_out = last[1] if last is not None else 0
            self._last[key] = (now, 0)
            if len(self._last) > 4096:  # bounded: forget the oldest subjects
                for old in sorted(self._last, key=lambda k: self._last[k][0])[:2048]:
                    del self._last[old]
        try:
            suffix = f" ({left_out} more like it not logged)" if left_out else ""
            self.log.log(level, message + suffix, *args)
        except Exception:  # a log line never breaks what it describes
            return False
        return True


def pass_skipped_for_outage(log: OutageLog, task: str, exc: BaseException) -> bool:
    """Whether a periodic pass failed because the database is away: then it says so in one line
    (now and then, not every pass) instead of a traceback, and the next pass does its work."""
    if not database_unreachable(exc):
        return False
    log(
        logging.WARNING,
        task,
        "database",
        "%s skipped: the database cannot be reached (%s)",
        task,
        type(exc).__name__,
    )
    return True

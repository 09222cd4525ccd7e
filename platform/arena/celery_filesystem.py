"""What a Celery worker needs to run well on kombu's filesystem broker (``make run``'s default).

Celery builds some of its stack for brokers with an event loop (Redis, AMQP) only; kombu's
filesystem transport says it has none, and there those parts fail quietly:

- **The pool.** Without an event loop Celery runs billiard's *blocking* pool: every child takes
  its next job from one shared pipe, in two reads (the length, then the bytes). A child killed
  between the two (SIGKILL from the OOM killer or an operator, timed right after a job is sent)
  leaves the rest of the message in the pipe: the next child takes those bytes for a length and
  waits forever, and every job after it goes into that wait. A child killed after the reads and
  before it told the pool it took the job takes the job with it, and the pool waits for it
  forever. Either way the job never ends and its prefetch slot stays taken until the worker
  restarts (tests/e2e/test_pool_race.py). So :class:`Transport` says it has an event loop and
  delivers from it (:meth:`Transport.register_with_event_loop`): Celery then runs the pool it
  runs on Redis, which gives each child pipes of its own and knows which child a job was
  written to. A job written to a child that dies before taking it goes to another child; a job
  it took is failed as lost, and ``task_reject_on_worker_lost`` hands it back to the broker.
  :class:`Pool`, the blocking pool with the shared pipes' locks replaced by POSIX record locks
  (``fcntl.lockf``, released by the kernel when their holder dies), remains for a worker that
  Celery still runs without an event loop (under eventlet or gevent): an idle child killed
  while it waits in the pipe's lock no longer stalls every other child there. Celery takes
  :class:`TaskPool` from ``CELERY_WORKER_POOL``.
- **Acknowledgements** (without an event loop). The blocking loop acknowledges a finished task
  (``acks_late``) only between two calls of ``drain_events(timeout=2.0)``; with every pool
  process busy the transport would keep polling for the whole two seconds, so each process ran
  at most one task every two seconds, slower than beat sends its periodic tasks.
  :class:`Transport` returns after one polling interval when its consumer may not take more.
  On the event loop the worker acknowledges as soon as a task ends.
  Celery takes it from ``CELERY_BROKER_TRANSPORT``.
- **What waits can be read.** The sweeper finds a lost match message by reading what waits in
  the queue folder (:func:`queued_messages`) beside what the live workers say they hold
  (``arena.workflows.lifecycle``), as it reads Redis's queues there.
- **Messages appear whole.** kombu's filesystem channel creates a message's file under its final
  name and then writes it, so a consumer polling in between takes an empty file, fails to decode
  it and the worker stops ("Unrecoverable error: JSONDecodeError"; seen on a busy host).
  :class:`Channel` writes under a name no consumer takes, then renames it (atomic within a
  folder).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import threading
import time
import uuid
import weakref
from queue import Empty
from typing import Any

from billiard.pool import Pool as BlockingPool
from celery.concurrency.prefork import TaskPool as PreforkTaskPool
from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps, loads

#: Messages one poll of the event loop delivers at most (then the loop serves the rest).
MAX_DELIVERIES_PER_POLL = 100

_LOCKS: weakref.WeakSet[DeathReleasedLock] = weakref.WeakSet()


class DeathReleasedLock:
    """A lock between the processes forked from its creator that a dying holder releases.

    Exclusion between processes is a POSIX record lock on an anonymous file (locks belong to a
    process, are not inherited by ``fork`` and vanish with their process); exclusion between the
    threads of one process is an ordinary lock, made afresh in each forked child (a thread of
    the parent may have held it at the fork).
    """

    def __init__(self) -> None:
        fd, path = tempfile.mkstemp(prefix="arena-pool-lock-")
        os.unlink(path)
        self._fd = fd
        self._threads = threading.Lock()
        _LOCKS.add(self)

    def _after_fork_in_child(self) -> None:
        self._threads = threading.Lock()

    def acquire(self, block: bool = True, timeout: float | None = None) -> bool:
        """Take the lock; with ``block`` false or a ``timeout``, give up and return False."""
        wait = timeout if block and timeout is not None and timeout >= 0 else None
        if not self._threads.acquire(block, -1 if wait is None else wait):
            return False
        try:
            if block and wait is None:
                fcntl.lockf(self._fd, fcntl.LOCK_EX)
                return True
            deadline = time.monotonic() + (wait or 0.0)
            while True:
                try:
                    fcntl.lockf(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return True
                except (BlockingIOError, PermissionError):  # held by another process
                    if time.monotonic() >= deadline:
                        break
                    time.sleep(0.005)
        except BaseException:
            self._threads.release()
            raise
        self._threads.release()
        return False

    def release(self) -> None:
        """Give the lock back."""
        fcntl.lockf(self._fd, fcntl.LOCK_UN)
        self._threads.release()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *_: object) -> None:
        self.release()


def _reset_thread_locks() -> None:
    for lock in list(_LOCKS):
        lock._after_fork_in_child()


os.register_at_fork(after_in_child=_reset_thread_locks)


class Pool(BlockingPool):  # type: ignore[misc]
    """billiard's blocking pool whose shared pipes a killed child cannot leave locked."""

    def _setup_queues(self) -> None:
        super()._setup_queues()
        if self._ctx.get_start_method() != "fork":  # the locks travel by fork only
            return
        for queue in (self._inqueue, self._outqueue):
            queue._rlock = DeathReleasedLock()
            queue._wlock = DeathReleasedLock()


class TaskPool(PreforkTaskPool):  # type: ignore[misc]
    """Celery's prefork pool with :class:`Pool` as its blocking pool (a worker without an event
    loop); on the event loop (Redis, and the filesystem broker through :class:`Transport`)
    Celery's own per-child pipe pool runs unchanged."""

    BlockingPool = Pool


class Channel(filesystem.Channel):  # type: ignore[misc]
    """kombu's filesystem channel, whose messages appear in the queue folder whole."""

    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        # kombu's own name (its consumers sort on the leading milliseconds), written first under
        # a name without ".<queue>.msg", which no consumer takes.
        name = f"{round(time.monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = os.path.join(self.data_folder_out, f".partial-{uuid.uuid4().hex}")
        try:
            with open(partial, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.remove(partial)
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):  # type: ignore[misc]
    """kombu's filesystem transport, polled from the worker's event loop (so that Celery runs
    its per-child pipe pool), returning to a blocking loop as soon as its consumer is full, with
    messages that appear whole (:class:`Channel`)."""

    Channel = Channel
    #: Celery runs a worker on an event loop (and with it its per-child pipe pool) only for a
    #: transport that says it can; :meth:`register_with_event_loop` is how this one can.
    implements = filesystem.Transport.implements.extend(asynchronous=True)

    def register_with_event_loop(self, connection: Any, loop: Any) -> None:
        """Poll the queue folders from the worker's event loop every polling interval."""
        loop.call_repeatedly(self.polling_interval or 1.0, self._deliver_ready)

    def _deliver_ready(self) -> None:
        """Deliver the messages waiting now, as many as the consumers may take (their prefetch),
        without waiting for more."""
        for _ in range(MAX_DELIVERIES_PER_POLL):
            try:
                self.cycle.get(self._deliver, timeout=0)
            except Empty:
                return

    def drain_events(self, connection: Any, timeout: float | None = None) -> Any:
        """Wait for one message; when a consumer may take no more, for one polling interval
        at most. Clients that take everything (a control reply, a result) wait as asked."""
        if timeout is not None and self.polling_interval and self._consumers_full():
            timeout = min(timeout, self.polling_interval)
        return super().drain_events(connection, timeout=timeout)

    def _consumers_full(self) -> bool:
        return any(
            channel._consumers and not channel.qos.can_consume() for channel in self.channels
        )


# --- What waits in the queue folder (the sweeper's view, arena.workflows.lifecycle) ------------


def is_filesystem_channel(channel: Any) -> bool:
    """Whether ``channel`` is kombu's filesystem channel (``make run``'s embedded broker)."""
    return isinstance(channel, filesystem.Channel)


def queued_messages(channel: Any, queues: Any) -> list[dict[str, Any]]:
    """The messages waiting in ``queues``, read from the queue folder. A file a worker takes
    meanwhile is skipped; a file that is not a message is ignored (never raises for one)."""
    suffixes = tuple(f".{queue}.msg" for queue in queues)
    folder = str(channel.data_folder_in)
    found: list[dict[str, Any]] = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return found
    for name in names:
        if not name.endswith(suffixes):
            continue
        try:
            with open(os.path.join(folder, name), "rb") as f:
                message = loads(f.read(1 << 20).decode("utf-8", "replace"))
        except (OSError, ValueError):
            continue
        if isinstance(message, dict):
            found.append(message)
    return found

"""A worker on the filesystem broker (arena/celery_filesystem.py): it runs on Celery's event
loop, whose pool gives each child pipes of its own (a child killed as a job is handed to it:
tests/e2e/test_pool_race.py); without an event loop its blocking pool survives a child killed
while it waits for work, and a full worker acknowledges without waiting.

billiard's blocking pool lets an idle child wait for its next job while holding the shared
pipe's lock; killed there, it left every other child and every replacement waiting forever.
These tests kill the children of a real pool and ask it for work again.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from arena.celery_app import app
from arena.celery_filesystem import DeathReleasedLock, Pool, TaskPool
from celery.concurrency import get_implementation
from kombu import Connection, Exchange, Queue
from kombu.asynchronous import Hub
from kombu.message import Message
from kombu.transport.virtual import base as virtual_base

#: Generous: a fresh child forks and imports nothing; this only bounds a hang, it times nothing.
WAIT_S = 60.0


def _terminate(pool: Any) -> None:
    # A pool whose lock a dead child kept would hang in terminate(): never let it hang the run.
    stopper = threading.Thread(target=pool.terminate, daemon=True)
    stopper.start()
    stopper.join(WAIT_S)
    for process in list(pool._pool):
        if process.pid and process.is_alive():
            os.kill(process.pid, signal.SIGKILL)


def _wait_for_replacements(pool: Any, killed: list[int]) -> None:
    for _ in range(int(WAIT_S * 10)):
        pids = [p.pid for p in pool._pool if p.is_alive()]
        if len(pids) == 2 and not set(pids) & set(killed):
            return
        threading.Event().wait(0.1)


def test_a_pool_works_on_after_its_idle_children_are_killed() -> None:
    pool = Pool(processes=2)
    try:
        pool.apply_async(os.getpid).get(timeout=WAIT_S)  # both children up and idle
        originals = [p.pid for p in pool._pool]
        # One of them is blocked reading the job pipe, holding its lock: kill them all.
        for pid in originals:
            os.kill(pid, signal.SIGKILL)
        # Ask once the replacements run: a job written while a killed child is still dying can
        # be read by it (the kernel copies waiting data before it acts on the signal), a
        # narrower race of a shared pipe that this pool does not close.
        _wait_for_replacements(pool, originals)
        served = {pool.apply_async(os.getpid).get(timeout=WAIT_S) for _ in range(4)}
        assert served and not served & set(originals)
    finally:
        _terminate(pool)


def test_a_lock_held_by_a_killed_process_is_free_again() -> None:
    lock = DeathReleasedLock()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child takes the lock, says so, and waits to die
        lock.acquire()
        os.write(write, b"x")
        signal.pause()
        os._exit(0)
    try:
        os.read(read, 1)
        assert not lock.acquire(block=False)  # the child holds it
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        assert lock.acquire(timeout=WAIT_S)
        lock.release()
    finally:
        os.close(read)
        os.close(write)


def test_the_workers_run_this_pool() -> None:
    implementation = get_implementation(app.conf.worker_pool)
    assert issubclass(implementation, TaskPool)
    assert implementation.BlockingPool is Pool


@pytest.mark.parametrize("block", [False, True])
def test_a_held_lock_is_refused_within_a_thread_too(block: bool) -> None:
    lock = DeathReleasedLock()
    with lock:
        got: list[bool] = []
        waiter = threading.Thread(target=lambda: got.append(lock.acquire(block, 0.05)))
        waiter.start()
        waiter.join(WAIT_S)
        assert got == [False]
    assert lock.acquire(block=False)
    lock.release()


class _Clock:
    """Stands in for kombu's clock: each sleep moves time on, so no test waits."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps = 0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        self.now += seconds


def broker_folders(tmp_path: Path) -> dict[str, Any]:
    """The transport options of a filesystem broker in ``tmp_path``: one queue folder (made here)
    that messages are written to and read from, and a control folder."""
    folder = tmp_path / "queue"
    folder.mkdir()
    return {
        "data_folder_in": str(folder),
        "data_folder_out": str(folder),
        "control_folder": str(tmp_path / "control"),
    }


@contextmanager
def one_at_a_time(conn: Connection, prefix: str, messages: int) -> Iterator[list[Message]]:
    """Publish ``messages`` messages (``{"n": 0}``, ``{"n": 1}``…) to a fresh queue and consume
    it one unacknowledged message at a time (prefetch 1): the list yielded collects what came.

    The queue's name is this test's own: kombu keeps the bindings of the filesystem broker per
    process.
    """
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    queue = Queue(name, Exchange(name), name)
    taken: list[Message] = []
    with conn.Consumer(queue, callbacks=[lambda _, m: taken.append(m)], prefetch_count=1):
        with conn.Producer() as producer:
            for n in range(messages):
                producer.publish({"n": n}, exchange=queue.exchange, routing_key=name)
        yield taken


@pytest.mark.parametrize("transport", ["arena.celery_filesystem:Transport", "filesystem"])
def test_a_full_consumer_gets_back_to_its_worker_after_one_poll(
    transport: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker whose processes are all busy acknowledges what finished between two waits for
    the broker: the wait must end after one polling interval, not after the worker's 2 s."""
    options = {**broker_folders(tmp_path), "polling_interval": 0.1}
    with (
        Connection("filesystem://", transport=transport, transport_options=options) as conn,
        one_at_a_time(conn, "work", 2) as taken,
    ):
        conn.drain_events(timeout=5)  # one message taken, not acknowledged: the consumer is full
        assert len(taken) == 1
        clock = _Clock()
        monkeypatch.setattr(virtual_base, "monotonic", clock.monotonic)
        monkeypatch.setattr(virtual_base, "sleep", clock.sleep)
        with pytest.raises(socket.timeout):
            conn.drain_events(timeout=2.0)
        monkeypatch.undo()
        polls = clock.sleeps
        taken[0].ack()
        conn.drain_events(timeout=5)  # room again: the second message comes
        assert len(taken) == 2
    if transport == "filesystem":  # kombu's own: polls until the worker's timeout is over
        assert polls >= 19
    else:
        assert polls == 1


def test_a_message_is_never_seen_half_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kombu's own channel creates a message's file and then writes it: a consumer polling in
    between takes an empty file and the worker dies decoding it. Here, at the moment the bytes are
    written, no file a consumer would take is in the queue folder."""
    from arena import celery_filesystem

    options = broker_folders(tmp_path)
    folder = Path(options["data_folder_in"])
    name = f"whole-{uuid.uuid4().hex[:8]}"
    seen_while_writing: list[list[str]] = []
    real_replace = os.replace

    def replace(src: str, dst: str) -> None:
        seen_while_writing.append([f for f in os.listdir(folder) if f".{name}.msg" in f])
        real_replace(src, dst)

    monkeypatch.setattr(celery_filesystem.os, "replace", replace)
    with Connection(
        "filesystem://", transport="arena.celery_filesystem:Transport", transport_options=options
    ) as conn:
        queue = Queue(name, Exchange(name), name)
        taken: list[Any] = []
        with conn.Consumer(queue, callbacks=[lambda body, m: (taken.append(body), m.ack())]):
            with conn.Producer() as producer:
                producer.publish({"n": 1}, exchange=queue.exchange, routing_key=name)
            conn.drain_events(timeout=5)
    assert seen_while_writing == [[]], "a consumer could take a message before it was written"
    assert taken == [{"n": 1}]


def test_the_event_loop_delivers_what_the_consumer_may_take(tmp_path: Path) -> None:
    """Celery runs a worker on its event loop, and so its per-child pipe pool, only on a
    transport that can be polled from it; there, each poll delivers what the consumer's
    prefetch allows, and the next message once the first is acknowledged."""
    options = {
        "data_folder_in": str(tmp_path / "queue"),
        "data_folder_out": str(tmp_path / "queue"),
        "control_folder": str(tmp_path / "control"),
        "polling_interval": 0.01,
    }
    (tmp_path / "queue").mkdir()
    hub = Hub()
    with Connection(
        "filesystem://", transport="arena.celery_filesystem:Transport", transport_options=options
    ) as conn:
        assert conn.transport.implements.asynchronous
        with one_at_a_time(conn, "loop", 3) as taken:
            conn.transport.register_with_event_loop(conn.connection, hub)
            loop = hub.create_loop()

            def turn_until(count: int) -> bool:
                for _ in range(int(WAIT_S / 0.01)):
                    if len(taken) >= count:
                        return True
                    next(loop)
                return False

            assert turn_until(1), "the event loop delivered nothing"
            for _ in range(20):  # more polls: the consumer is full
                next(loop)
            assert len(taken) == 1
            taken[0].ack()
            assert turn_until(2), "the event loop delivered nothing after the acknowledgement"
            # Two messages published within one millisecond come in either order.
            assert len(taken) == 2 and taken[0].payload != taken[1].payload
    hub.close()


def test_the_embedded_brokers_url_names_a_host(caplog: Any) -> None:
    """Described without a host, a filesystem connection logged a warning each time (a dozen
    lines in every ``make run`` log)."""
    from django.conf import settings

    if not str(settings.CELERY_BROKER_URL).startswith("filesystem:"):
        pytest.skip("this run's broker is not the embedded one")
    with caplog.at_level("WARNING", logger="kombu.connection"):
        conn = Connection(
            settings.CELERY_BROKER_URL,
            transport="arena.celery_filesystem:Transport",
            transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS,
        )
        conn.as_uri()
        conn.info()
    assert not [r for r in caplog.records if "hostname" in r.getMessage()]

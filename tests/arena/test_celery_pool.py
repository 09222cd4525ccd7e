"""The worker's pool survives a child killed while it waits for work (arena/celery_pool.py).

billiard's blocking pool (what Celery runs on the filesystem broker of ``make run``) lets an idle
child wait for its next job while holding the shared pipe's lock; killed there, it left every
other child and every replacement waiting forever. These tests kill the children of a real pool
and ask it for work again.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

import pytest
from celery.concurrency import get_implementation

from arena.celery_app import app
from arena.celery_pool import DeathReleasedLock, Pool, TaskPool

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


def test_a_pool_works_on_after_its_idle_children_are_killed() -> None:
    pool = Pool(processes=2)
    try:
        pool.apply_async(os.getpid).get(timeout=WAIT_S)  # both children up and idle
        originals = [p.pid for p in pool._pool]
        # One of them is blocked reading the job pipe, holding its lock: kill them all.
        for pid in originals:
            os.kill(pid, signal.SIGKILL)
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

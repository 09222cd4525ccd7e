"""Worker pools as ``make run`` starts them, for the benches that measure real workers (imported
by them, not run: no figures of its own).

Each pool is one ``celery worker`` node built by ``arena_worker``'s own ``worker_argv`` from
``POOLS``, ``POOL_EXTRA`` and ``POOL_ENV`` (what ``manage.py arena_run`` starts), in a process
group of its own so that stopping it stops its pool processes too. Import after
``django.setup()``: the queue names come from the settings.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterable
from typing import IO

from devtools.parts import start_process


def start_pools(
    env: dict[str, str],
    log: IO[bytes],
    names: Iterable[str],
    concurrency: dict[str, int | None],
) -> list[subprocess.Popen[bytes]]:
    """Start the pools ``names`` (keys of ``POOLS``: "worker", "interactive worker", ...), each
    with its ``concurrency`` (None: the settings' default, as ``make run`` leaves it)."""
    from arena.ops.management.commands.arena_worker import (
        POOL_ENV,
        POOL_EXTRA,
        POOLS,
        worker_argv,
    )

    procs = []
    for name in names:
        argv = worker_argv(
            concurrency=concurrency.get(name), roles=POOLS[name], extra=POOL_EXTRA.get(name, ())
        )
        procs.append(start_process(argv, {**env, **POOL_ENV.get(name, {})}, log, new_session=True))
    return procs


def stop_pools(procs: list[subprocess.Popen[bytes]], timeout_s: float = 20.0) -> None:
    """SIGTERM each node (Celery's warm shutdown), wait up to ``timeout_s``, then kill each
    node's whole process group (its pool processes with it)."""
    for proc in procs:
        with contextlib.suppress(ProcessLookupError):
            proc.terminate()
    deadline = time.monotonic() + timeout_s
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
    for proc in procs:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)

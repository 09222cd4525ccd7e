"""The warm pool: docker sandboxes created ahead of demand (docs/sandbox.md, "Protocol, freezing
and warm pool").

Creating, attaching and starting a container and starting Python in it takes about 180 ms on an
idle host and seconds on a busy one; a match needs two. The pool keeps ``size`` of them ready:
the container running, the harness idle and answering a ping, no agent code in it. A match takes
one per seat (``take``), gives it the agent's source over the protocol (the ``load`` request) and
destroys it at the end like any other; a container is never used for a second agent. Threads
refill the pool in the background; ``close`` drains it (removes every idle container).

Pool containers carry the ``arena.sandbox.pool=1`` label besides the usual ones (instance,
owner, expiry), so a reaper can tell them apart: an idle pool container of a live owner is not
an orphan. The pool retires idle containers at half their ``max_lifetime_s`` so none reaches its
expiry label idle.

One pool per process (``configure``), for one instance (``sandbox/instance.py``): it serves only
handles of that instance and drains only its own containers; a forked child does not inherit it
(it starts its own).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import threading
import time
from collections import deque
from typing import Any

from games.core.errors import PlatformError
from sandbox import observe
from sandbox.container_config import container_key
from sandbox.docker_handle import DockerAgentHandle
from sandbox.engine import wait_for_removals
from sandbox.instance import PROCESS_INSTANCE, checked_instance
from sandbox.limits import SandboxLimits
from sandbox.reaper import containers_of_process

logger = logging.getLogger(__name__)

#: Containers started at once: the engine's work is latency as much as CPU, so two in flight
#: refill about 40% faster than one on 2 cores.
FILLERS = 2
#: How long a new container's harness has to answer its first ping.
PING_TIMEOUT_S = 30.0
#: How long a pooled harness has to answer the ping that checks it when it is taken.
TAKE_PING_TIMEOUT_S = 2.0
#: Wait after a failed refill (no engine, image missing) before trying again; doubled after each
#: failure in a row, up to ``RETRY_AFTER_MAX_S``.
RETRY_AFTER_S = 1.0
RETRY_AFTER_MAX_S = 60.0


class WarmPool:
    """``size`` started docker sandboxes with idle harnesses, refilled by a thread."""

    def __init__(
        self, limits: SandboxLimits, size: int, *, instance: str = PROCESS_INSTANCE
    ) -> None:
        if size < 0:
            raise ValueError("the warm pool's size cannot be negative")
        self.limits = limits
        self.instance = checked_instance(instance)
        self.size = size
        self.key = container_key(limits)
        self._ready: deque[DockerAgentHandle] = deque()
        self._starting: list[DockerAgentHandle] = []
        self._filling = 0
        self._lock = threading.Condition()
        self._closed = False
        self._pid = os.getpid()
        self._threads: list[threading.Thread] = []
        #: Counters for the bench and the logs.
        self.taken = 0
        self.missed = 0
        self.created = 0
        self.failures = 0

    # --- life ---------------------------------------------------------------------------------

    def start(self) -> WarmPool:
        """Start the refilling threads (once)."""
        with self._lock:
            if not self._threads and self.size > 0 and not self._closed:
                for number in range(min(FILLERS, self.size)):
                    thread = threading.Thread(
                        target=self._fill, name=f"arena-warm-pool-{number}", daemon=True
                    )
                    self._threads.append(thread)
                    thread.start()
        return self

    def close(self, timeout_s: float = 30.0) -> int:
        """Stop refilling and remove every idle container; return how many were removed."""
        if os.getpid() != self._pid:
            # A forked child: those containers (and this lock, perhaps held at the fork) are
            # the parent's.
            return 0
        with self._lock:
            self._closed = True
            self._lock.notify_all()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout_s)
        with self._lock:
            idle = list(self._ready)
            self._ready.clear()
        for handle in idle:
            handle.close()
        return len(idle)

    def wait_ready(self, timeout_s: float) -> bool:
        """Block until the pool is full (for benches and tests); False on timeout."""
        deadline = time.monotonic() + timeout_s
        with self._lock:
            while len(self._ready) < self.size and not self._closed:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._lock.wait(remaining)
            return len(self._ready) >= self.size

    @property
    def idle_ids(self) -> set[str]:
        """Ids of the idle containers and of those being started (not leaks: the pool removes
        them when it drains)."""
        with self._lock:
            return {h.container_id for h in [*self._ready, *self._starting] if h.container_id}

    # --- use ----------------------------------------------------------------------------------

    def take(
        self, source: str, *, name: str, limits: SandboxLimits, instance: str = PROCESS_INSTANCE
    ) -> DockerAgentHandle | None:
        """A ready handle for this agent, or ``None`` (the caller then starts a cold one)."""
        if (
            os.getpid() != self._pid
            or container_key(limits) != self.key
            or instance != self.instance
        ):
            return None
        chosen = None
        while chosen is None:
            with self._lock:
                candidate = self._ready.popleft() if self._ready else None
                self._lock.notify_all()  # the filler replaces what left
            if candidate is None:
                break
            if self._usable(candidate):
                chosen = candidate
            else:
                candidate.close()
        with self._lock:
            if chosen is None:
                self.missed += 1
            else:
                self.taken += 1
        observe.pool_taken(hit=chosen is not None)
        if chosen is not None:
            chosen.adopt(source, name=name, limits=limits)
        return chosen

    def _usable(self, handle: DockerAgentHandle) -> bool:
        """Young enough and its harness answers a ping now (about 0.3 ms): a container that
        died in the pool must never reach an agent, whose load would then seem to fail."""
        if time.time() - handle.started_at > self.limits.max_lifetime_s / 2:
            return False
        if not handle.is_alive():
            return False
        return handle.answers_ping(TAKE_PING_TIMEOUT_S)

    # --- the filling thread -------------------------------------------------------------------

    def _fill(self) -> None:
        failed_in_a_row = 0
        while True:
            with self._lock:
                while not self._closed and len(self._ready) + self._filling >= self.size:
                    self._lock.wait()
                if self._closed:
                    return
                self._filling += 1
            handle = DockerAgentHandle(
                "", name="(warm pool)", limits=self.limits, instance=self.instance
            )
            with self._lock:
                self._starting.append(handle)
            try:
                handle.prepare(PING_TIMEOUT_S)
            except Exception as exc:  # never let the filler die: say why, wait, try again
                with self._lock:
                    self._starting.remove(handle)
                handle.close()
                failed_in_a_row += 1
                pause = min(RETRY_AFTER_MAX_S, RETRY_AFTER_S * 2 ** (failed_in_a_row - 1))
                if isinstance(exc, PlatformError):
                    logger.warning("the warm pool could not start a sandbox: %s", exc)
                else:
                    logger.exception("the warm pool's filler failed")
                resume = time.monotonic() + pause
                with self._lock:
                    self._filling -= 1
                    self.failures += 1
                    self._lock.notify_all()
                    # Takes notify too: sleep the whole pause unless the pool closes.
                    while not self._closed and (left := resume - time.monotonic()) > 0:
                        self._lock.wait(left)
                continue
            failed_in_a_row = 0
            with self._lock:
                self._starting.remove(handle)
                self._filling -= 1
                self.created += 1
                if self._closed:
                    keep = False
                else:
                    self._ready.append(handle)
                    keep = True
                self._lock.notify_all()
            if not keep:
                handle.close()


_pool: WarmPool | None = None
_pool_lock = threading.Lock()


def configure(
    limits: SandboxLimits, size: int, *, instance: str = PROCESS_INSTANCE
) -> WarmPool | None:
    """Start this process's warm pool for ``instance`` (replacing and draining another one);
    ``None`` for 0."""
    global _pool
    with _pool_lock:
        old, _pool = _pool, None
        if size > 0:
            _pool = WarmPool(limits, size, instance=instance).start()
        new = _pool
    if old is not None:
        old.close()
    return new


def current() -> WarmPool | None:
    """This process's pool, if one was configured here (not in a parent before a fork)."""
    pool = _pool
    if pool is None or pool._pid != os.getpid():
        return None
    return pool


def drain() -> int:
    """Stop this process's pool and remove its idle containers (waiting until they are gone, and
    every other container this process queued for removal); return how many idle ones."""
    global _pool
    with _pool_lock:
        pool, _pool = _pool, None
    removed = 0 if pool is None else pool.close()
    wait_for_removals()
    return removed


def take(
    source: str, *, name: str, limits: SandboxLimits, instance: str = PROCESS_INSTANCE
) -> DockerAgentHandle | None:
    """A warm handle from this process's pool when it has one for these limits and instance."""
    pool = current()
    if pool is None:
        return None
    return pool.take(source, name=name, limits=limits, instance=instance)


def own_containers() -> list[dict[str, Any]]:
    """The sandbox containers this process created and has not removed (for leak checks).

    Waits for the background removals first. Idle containers of this process's warm pool and of
    its reuse cache are not counted (they remove them themselves), nor one the pool is starting
    at that moment.
    """
    from sandbox import reuse

    warm = current()
    idle = warm.idle_ids if warm is not None else set()
    return containers_of_process(besides=idle | reuse.idle_ids())


@atexit.register
def _drain_at_exit() -> None:
    with contextlib.suppress(Exception):
        drain()

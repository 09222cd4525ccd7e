"""Containers that serve several matches of one submission (docs/sandbox.md, "Reused
containers").

Creating and removing a container costs the Docker engine far more CPU than a short match costs
its agents. A supervised container (``SandboxLimits.supervised``: the harness runs as the
container's pid 1 supervisor, ``harness.Supervisor``) starts a fresh agent process for each match
and, when the match is over, kills every process the match left, empties /tmp, /dev/shm and
/dev/mqueue and checks what it cannot reset. A container whose match ended cleanly (no crash,
timeout, protocol breach, limit breach or freeze failure) and whose supervisor reported a clean
sweep comes here, idle, keyed by its submission (the ``reuse_key`` the platform gives
``create_handle``), and serves that submission's next match on this worker process.

Never shared: a container is handed back only to the same key, the same instance, the same
container configuration and the same source (its sha256); different submissions never meet in a
container. Never kept past ``SandboxLimits.reuse_max_matches`` matches or ``reuse_max_age_s``
seconds, ``idle_s`` seconds idle, or beyond ``max_idle`` idle containers (the longest idle goes
first); ``discard(key)`` removes a submission's idle ones at once (deactivated or replaced).

One cache per process, like the warm pool; a forked child does not inherit it.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import logging
import os
import threading
import time
from dataclasses import dataclass

from sandbox.container_config import container_key
from sandbox.docker_handle import DockerAgentHandle
from sandbox.instance import PROCESS_INSTANCE
from sandbox.limits import SandboxLimits

logger = logging.getLogger(__name__)

#: Idle containers kept per worker process, all submissions together.
DEFAULT_MAX_IDLE = 16
#: An idle container unused this long is removed.
DEFAULT_IDLE_S = 300.0


def _fingerprint(
    key: str, source: str, limits: SandboxLimits, instance: str
) -> tuple[str, str, str, SandboxLimits]:
    digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
    return (instance, key, digest, container_key(limits))


@dataclass
class _Idle:
    handle: DockerAgentHandle
    since: float


class ReuseCache:
    """Idle supervised containers of this process, by submission."""

    def __init__(self, *, max_idle: int = DEFAULT_MAX_IDLE, idle_s: float = DEFAULT_IDLE_S) -> None:
        self.max_idle = max_idle
        self.idle_s = idle_s
        self._idle: dict[tuple[str, str, str, SandboxLimits], list[_Idle]] = {}
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._sweeper: threading.Thread | None = None
        self._closed = threading.Event()
        #: Counters for the bench and the logs.
        self.reused = 0
        self.returned = 0
        self.evicted = 0

    def take(
        self, key: str, source: str, *, name: str, limits: SandboxLimits, instance: str
    ) -> DockerAgentHandle | None:
        """A new handle on an idle container of this submission, or ``None``."""
        if os.getpid() != self._pid:
            return None
        fingerprint = _fingerprint(key, source, limits, instance)
        while True:
            with self._lock:
                idle = self._idle.get(fingerprint)
                entry = idle.pop() if idle else None
                if idle is not None and not idle:
                    del self._idle[fingerprint]
            if entry is None:
                return None
            old = entry.handle
            if self._fresh(old, time.monotonic()) and old.is_alive():
                break
            self._remove(old)
        handle = DockerAgentHandle(source, name=name, limits=limits, instance=instance)
        handle.take_container(old)
        handle.reuse_key = key
        with self._lock:
            self.reused += 1
        return handle

    def give_back(self, handle: DockerAgentHandle) -> bool:
        """Keep ``handle``'s container (its match ended cleanly) for the submission's next match;
        False when this cache cannot (closed, another process)."""
        if os.getpid() != self._pid or self._closed.is_set() or handle.reuse_key is None:
            return False
        fingerprint = _fingerprint(handle.reuse_key, handle.source, handle.limits, handle.instance)
        now = time.monotonic()
        with self._lock:
            self._idle.setdefault(fingerprint, []).append(_Idle(handle, now))
            self.returned += 1
        self._start_sweeper()
        self.evict()
        return True

    def discard(self, key: str) -> int:
        """Remove every idle container of submission ``key`` now; return how many."""
        with self._lock:
            doomed = [fp for fp in self._idle if fp[1] == key]
            handles = [entry.handle for fp in doomed for entry in self._idle.pop(fp)]
        for handle in handles:
            self._remove(handle)
        return len(handles)

    def evict(self) -> int:
        """Remove idle containers past their idle time, age or match count, and the longest
        idle beyond ``max_idle``; return how many."""
        now = time.monotonic()
        with self._lock:
            entries = sorted(
                ((entry.since, fp, entry) for fp, idle in self._idle.items() for entry in idle),
                key=lambda item: item[0],
            )
            doomed = [
                entry
                for index, (_, _, entry) in enumerate(entries)
                if index < len(entries) - self.max_idle
                or now - entry.since > self.idle_s
                or not self._fresh(entry.handle, now)
            ]
            for fp in list(self._idle):
                self._idle[fp] = [entry for entry in self._idle[fp] if entry not in doomed]
                if not self._idle[fp]:
                    del self._idle[fp]
            self.evicted += len(doomed)
        for entry in doomed:
            self._remove(entry.handle)
        return len(doomed)

    def close(self) -> int:
        """Remove every idle container and stop keeping any; return how many were removed."""
        if os.getpid() != self._pid:
            return 0
        self._closed.set()
        with self._lock:
            handles = [entry.handle for idle in self._idle.values() for entry in idle]
            self._idle.clear()
        for handle in handles:
            self._remove(handle)
        return len(handles)

    @property
    def idle_ids(self) -> set[str]:
        """Ids of the idle containers (not leaks: this cache removes them)."""
        with self._lock:
            return {
                e.handle.container_id
                for idle in self._idle.values()
                for e in idle
                if e.handle.container_id
            }

    def _fresh(self, handle: DockerAgentHandle, now: float) -> bool:
        del now  # the age that counts is the container's own (its start), in wall time
        limits = handle.limits
        return (
            handle.matches_served < limits.reuse_max_matches
            and time.time() - handle.started_at < limits.reuse_max_age_s
        )

    def _remove(self, handle: DockerAgentHandle) -> None:
        # The channel closes: the supervisor reads the end of its input and exits (pid 1, so
        # the container ends); the removal waits for that in the background.
        handle._discard_container()

    def _start_sweeper(self) -> None:
        with self._lock:
            if self._sweeper is not None:
                return
            self._sweeper = threading.Thread(
                target=self._sweep, name="arena-reuse-sweeper", daemon=True
            )
        self._sweeper.start()

    def _sweep(self) -> None:
        # Idle containers of a submission that plays no more (deactivated, replaced, or just
        # not paired on this worker) go after ``idle_s`` even when no match comes to evict them.
        while not self._closed.wait(max(1.0, self.idle_s / 4)):
            try:
                self.evict()
            except Exception:  # never let the sweeper die: say why and go on
                logger.exception("the reuse cache could not evict idle containers")


_cache: ReuseCache | None = None
_cache_lock = threading.Lock()


def configure(*, max_idle: int = DEFAULT_MAX_IDLE, idle_s: float = DEFAULT_IDLE_S) -> ReuseCache:
    """This process's cache, with these bounds from now on (idle containers stay)."""
    global _cache
    with _cache_lock:
        if _cache is None or _cache._pid != os.getpid():
            _cache = ReuseCache(max_idle=max_idle, idle_s=idle_s)
        _cache.max_idle, _cache.idle_s = max_idle, idle_s
        cache = _cache
    cache.evict()
    return cache


def current() -> ReuseCache:
    """This process's cache (made with the defaults on first use, and after a fork)."""
    global _cache
    with _cache_lock:
        if _cache is None or _cache._pid != os.getpid():
            _cache = ReuseCache()
        return _cache


def take(
    key: str,
    source: str,
    *,
    name: str,
    limits: SandboxLimits,
    instance: str = PROCESS_INSTANCE,
) -> DockerAgentHandle | None:
    """A handle on an idle container of submission ``key`` in this process, or ``None``."""
    return current().take(key, source, name=name, limits=limits, instance=instance)


def give_back(handle: DockerAgentHandle) -> bool:
    """Keep the container of a cleanly ended match for its submission's next one."""
    return current().give_back(handle)


def discard(key: str) -> int:
    """Remove this process's idle containers of submission ``key``; return how many."""
    return current().discard(key)


def drain() -> int:
    """Remove every idle container of this process (the worker shuts down); return how many."""
    global _cache
    with _cache_lock:
        cache, _cache = _cache, None
    if cache is None or cache._pid != os.getpid():
        return 0
    return cache.close()


def idle_ids() -> set[str]:
    """Ids of this process's idle reused containers."""
    cache = _cache
    if cache is None or cache._pid != os.getpid():
        return set()
    return cache.idle_ids


@atexit.register
def _drain_at_exit() -> None:
    with contextlib.suppress(Exception):
        drain()

"""Per-model concurrency and rate caps, shared by every worker through Redis.

A seat waits here for a slot before each call; the wait is never charged to its move (the
seat's clock runs only around the HTTP call). A slot is a member of a Redis sorted set scored
by its expiry, so a worker that dies holding one frees it when it expires; the rate is a
counter per model and minute. Without ``REDIS_URL`` (the embedded ``make run``) the caps hold
within this process only.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Iterator
from functools import cache
from typing import cast

import redis
from django.conf import settings

from games.core import PlatformError

#: A slot not released within this long is taken back (a worker that died holding it).
SLOT_LEASE_S = 900
_POLL_S = 0.05

_ACQUIRE = """
local key, now, cap, token, expiry = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3],
    tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if redis.call('ZCARD', key) < cap then
  redis.call('ZADD', key, expiry, token)
  redis.call('EXPIRE', key, 3600)
  return 1
end
return 0
"""

_RATE = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], 120) end
if n > tonumber(ARGV[1]) then redis.call('DECR', KEYS[1]) return 0 end
return 1
"""


@cache
def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)


class _Local:
    """The in-process fallback: one semaphore and one rate window per model."""

    lock = threading.Lock()
    slots: dict[str, threading.BoundedSemaphore] = {}
    minutes: dict[str, tuple[int, int]] = {}


def _rate_ok_local(model: str, per_minute: int) -> bool:
    minute = int(time.time() // 60)
    with _Local.lock:
        at, count = _Local.minutes.get(model, (minute, 0))
        if at != minute:
            at, count = minute, 0
        if count >= per_minute:
            return False
        _Local.minutes[model] = (at, count + 1)
        return True


@contextlib.contextmanager
def model_slot(
    *, model: str, concurrency: int, per_minute: int, wait_max_s: float | None = None
) -> Iterator[None]:
    """Hold one of ``model``'s ``concurrency`` slots and one of its calls this minute.

    Raises ``PlatformError`` after ``wait_max_s`` (``ARENA_LLM_SLOT_WAIT_MAX_S``) without one.
    """
    wait_max_s = settings.ARENA_LLM_SLOT_WAIT_MAX_S if wait_max_s is None else wait_max_s
    deadline = time.monotonic() + wait_max_s
    concurrency, per_minute = max(1, concurrency), max(1, per_minute)
    url = settings.REDIS_URL
    if not url:
        with _Local.lock:
            sem = _Local.slots.setdefault(model, threading.BoundedSemaphore(concurrency))
        if not sem.acquire(timeout=wait_max_s):
            raise PlatformError(f"model {model}: no free slot within {wait_max_s:g} s")
        try:
            while not _rate_ok_local(model, per_minute):
                if time.monotonic() > deadline:
                    raise PlatformError(f"model {model}: rate cap, no call within {wait_max_s:g} s")
                time.sleep(_POLL_S * 4)
            yield
        finally:
            sem.release()
        return
    client = _client(url)
    key = f"arena:llm:slots:{model}"
    token = uuid.uuid4().hex
    try:
        while True:
            now = time.time()
            if client.eval(
                _ACQUIRE, 1, key, str(now), str(concurrency), token, str(now + SLOT_LEASE_S)
            ):
                break
            if time.monotonic() > deadline:
                raise PlatformError(f"model {model}: no free slot within {wait_max_s:g} s")
            time.sleep(_POLL_S)
        try:
            while not client.eval(
                _RATE, 1, f"arena:llm:rpm:{model}:{int(time.time() // 60)}", str(per_minute)
            ):
                if time.monotonic() > deadline:
                    raise PlatformError(f"model {model}: rate cap, no call within {wait_max_s:g} s")
                time.sleep(_POLL_S * 4)
            yield
        finally:
            client.zrem(key, token)
    except redis.RedisError as exc:
        raise PlatformError(f"model {model}: the slot store failed ({type(exc).__name__})") from exc


def slots_in_use(*, model: str) -> int:
    """How many of ``model``'s slots are held now (Redis only; 0 without it)."""
    if not settings.REDIS_URL:
        return 0
    client = _client(settings.REDIS_URL)
    key = f"arena:llm:slots:{model}"
    client.zremrangebyscore(key, "-inf", time.time())
    held = client.zcard(key)  # a synchronous client: an int, never an awaitable
    return int(cast(int, held))

"""Per-model slots in a real Redis: the concurrency cap holds across threads (as across
workers), the wait is bounded and a timeout is a platform error, a slot is freed on exit."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from devtools.parts import redis_available, redis_server
from games.core import PlatformError
from tests.conftest import require_part


@pytest.fixture
def redis_url(settings: Any) -> Any:
    require_part(redis_available(), "needs redis-server")
    with redis_server() as url:
        settings.REDIS_URL = url
        yield url


def test_the_concurrency_cap_holds_and_a_slot_is_freed(redis_url: str) -> None:
    from arena.llm.limits import model_slot, slots_in_use

    inside: list[int] = []
    peak: list[int] = [0]
    lock = threading.Lock()

    def one() -> None:
        with model_slot(model="m", concurrency=2, per_minute=1000, wait_max_s=60):
            with lock:
                inside.append(1)
                peak[0] = max(peak[0], len(inside))
            time.sleep(0.05)
            with lock:
                inside.pop()

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert peak[0] == 2
    assert slots_in_use(model="m") == 0


def test_waiting_past_the_bound_is_a_platform_error(redis_url: str) -> None:
    from arena.llm.limits import model_slot

    with (
        model_slot(model="busy", concurrency=1, per_minute=1000, wait_max_s=5),
        pytest.raises(PlatformError, match="no free slot"),
        model_slot(model="busy", concurrency=1, per_minute=1000, wait_max_s=0.2),
    ):
        pass


def test_the_rate_cap_counts_calls_a_minute(redis_url: str) -> None:
    from arena.llm.limits import model_slot

    # The counter is per clock minute: start well inside one.
    if time.time() % 60 > 55:
        time.sleep(60 - time.time() % 60 + 0.1)
    for _ in range(3):
        with model_slot(model="rpm", concurrency=5, per_minute=3, wait_max_s=5):
            pass
    with (
        pytest.raises(PlatformError, match="rate cap"),
        model_slot(model="rpm", concurrency=5, per_minute=3, wait_max_s=0.3),
    ):
        pass

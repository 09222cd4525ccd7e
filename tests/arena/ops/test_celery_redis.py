"""The Redis transport's batched sends (arena.celery_redis), on a real redis-server: inside
``batched_puts`` nothing reaches Redis until the block ends, then every message does, in order,
as a worker reading the queue would take them; outside it, and after a failed block, messages
go out one by one as kombu sends them."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import redis
from celery import Celery

from devtools.parts import redis_available, redis_server
from tests.conftest import require_part

QUEUE = "batched-test"


@pytest.fixture
def redis_url() -> Iterator[str]:
    require_part(redis_available(), "redis-server (apt-get install redis-server)")
    with redis_server() as url:
        yield url


def _app(url: str) -> Celery:
    app = Celery("batched", broker=url)
    app.conf.broker_transport = "arena.celery_redis:Transport"
    return app


def _taken(client: redis.Redis) -> list[int]:
    """What a worker would take, in order (kombu pushes left and pops right)."""
    taken = []
    while (raw := client.rpop(QUEUE)) is not None:
        taken.append(json.loads(raw)["headers"]["argsrepr"])
    return [int(a.strip("(),")) for a in taken]


def test_a_batch_reaches_redis_whole_when_the_block_ends_in_order(redis_url: str) -> None:
    app = _app(redis_url)
    client = redis.Redis.from_url(redis_url)
    with app.producer_or_acquire() as producer:
        assert type(producer.channel).__module__ == "arena.celery_redis"
        with producer.channel.batched_puts():
            for i in range(50):
                app.send_task("t.run", args=(i,), queue=QUEUE, producer=producer)
            assert client.llen(QUEUE) == 0  # still on the pipeline
        assert client.llen(QUEUE) == 50
        # Outside a batch each message goes at once.
        app.send_task("t.run", args=(50,), queue=QUEUE, producer=producer)
        assert client.llen(QUEUE) == 51
    assert _taken(client) == list(range(51))


def test_a_failed_batch_sends_nothing_and_the_channel_sends_again(redis_url: str) -> None:
    app = _app(redis_url)
    client = redis.Redis.from_url(redis_url)
    with app.producer_or_acquire() as producer:
        with pytest.raises(RuntimeError), producer.channel.batched_puts():
            app.send_task("t.run", args=(1,), queue=QUEUE, producer=producer)
            raise RuntimeError("the caller failed half-way")
        assert client.llen(QUEUE) == 0
        app.send_task("t.run", args=(2,), queue=QUEUE, producer=producer)
    assert _taken(client) == [2]

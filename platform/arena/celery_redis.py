"""kombu's Redis transport, able to send a batch of messages in one round trip.

A matchmaking pass enqueues up to ``ARENA_MATCHMAKING_QUEUE_MAX`` matches at once. kombu sends
each message on its own: a Redis client made for it, one ``LPUSH`` and a wait for the answer.
On a busy host each of those waits is a wait for redis-server to be scheduled, and 500 of them
made most of a pass's time (docs/architecture.md, "Ratings and matchmaking"). Inside
:meth:`Channel.batched_puts` the channel queues its ``LPUSH`` commands on one pipeline and sends
them together when the block ends: the same commands, in the same order, to the same keys, so
the workers see exactly what they would have seen. Anything else (consuming, acknowledging,
exchange lookups) is kombu's own. Celery takes the transport from ``CELERY_BROKER_TRANSPORT``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kombu.transport import redis as kombu_redis
from kombu.utils.json import dumps


class Channel(kombu_redis.Channel):  # type: ignore[misc]  # kombu has no type hints
    _batch: Any = None

    @contextmanager
    def batched_puts(self) -> Iterator[bool]:
        """Messages published inside the block reach Redis as one pipeline when it ends (none
        if it raises: the caller's sweeper sends what never left). The block gets True."""
        with self.conn_or_acquire() as client:
            self._batch = client.pipeline(transaction=False)
            try:
                yield True
                self._batch.execute()
            finally:
                self._batch = None

    def _put(self, queue: str, message: dict[str, Any], **kwargs: Any) -> None:
        if self._batch is None:
            super()._put(queue, message, **kwargs)
            return
        # kombu's own ``_put``, on the batch's pipeline.
        priority = self._get_message_priority(message, reverse=False)
        self._batch.lpush(self._q_for_pri(queue, priority), dumps(message))


class Transport(kombu_redis.Transport):  # type: ignore[misc]
    Channel = Channel

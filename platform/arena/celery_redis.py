"""kombu's Redis transport, able to send a batch of messages in one round trip.

A matchmaking pass enqueues up to ``ARENA_MATCHMAKING_QUEUE_MAX`` matches at once. kombu sends
each message on its own: a Redis client made for it, one ``LPUSH`` and a wait for the answer.
On a busy host each of those waits is a wait for redis-server to be scheduled, and 500 of them
made most of a pass's time (docs/architecture.md, "Ratings and matchmaking"). Inside
:meth:`Channel.batched_puts` the channel queues its ``LPUSH`` commands on one pipeline and sends
them together when the block ends: the same commands, in the same order, to the same keys, so
the workers see exactly what they would have seen. Anything else (consuming, acknowledging,
exchange lookups) is kombu's own. Celery takes the transport from ``CELERY_BROKER_TRANSPORT``.

The functions at the end read what the broker holds (the messages waiting in a queue, the ones a
worker took and has not acknowledged) for the sweeper, which finds a queued match whose message
was lost in seconds, and drops the unacknowledged message of a match that is over.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from kombu.transport import redis as kombu_redis
from kombu.utils.json import dumps, loads


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


# --- What the broker holds (the sweeper's view, arena.workflows.lifecycle) ---------------------


@dataclass(frozen=True)
class Held:
    """A message a worker took and has not acknowledged (kombu's ``unacked`` hash)."""

    tag: str
    queue: str
    #: When it was delivered (``time.time()``).
    delivered: float
    message: dict[str, Any]


def queued_messages(channel: Any, queues: Iterable[str]) -> list[dict[str, Any]]:
    """The messages waiting in ``queues`` (every priority step of each), as kombu stored them."""
    client = channel.client
    found: list[dict[str, Any]] = []
    for queue in queues:
        names = dict.fromkeys(channel._q_for_pri(queue, p) for p in channel.priority_steps)
        for name in names:
            for raw in client.lrange(name, 0, -1):
                message = _loads(raw)
                if message is not None:
                    found.append(message)
    return found


def held_messages(channel: Any, queues: Iterable[str]) -> list[Held]:
    """The unacknowledged messages taken from ``queues``. The hash is shared by every
    deployment on this Redis: only entries routed to ``queues`` are returned."""
    wanted = set(queues)
    client = channel.client
    delivered = {
        _text(tag): float(score)
        for tag, score in client.zrange(channel.unacked_index_key, 0, -1, withscores=True)
    }
    held: list[Held] = []
    for tag, raw in client.hgetall(channel.unacked_key).items():
        entry = _loads(raw)
        if not isinstance(entry, list) or len(entry) != 3 or not isinstance(entry[0], dict):
            continue
        message, _exchange, routing_key = entry
        info = (message.get("properties") or {}).get("delivery_info") or {}
        queue = str(routing_key or info.get("routing_key") or "")
        if queue not in wanted:
            continue
        tag = _text(tag)
        held.append(Held(tag=tag, queue=queue, delivered=delivered.get(tag, 0.0), message=message))
    return held


def held_drop(channel: Any, tags: Iterable[str]) -> int:
    """Forget unacknowledged messages, as their acknowledgement would have (kombu's own two
    commands): they are never delivered again. Returns how many were dropped."""
    dropped = 0
    client = channel.client
    for tag in tags:
        _, removed = (
            client.pipeline()
            .zrem(channel.unacked_index_key, tag)
            .hdel(channel.unacked_key, tag)
            .execute()
        )
        dropped += int(bool(removed))
    return dropped


def is_redis_channel(channel: Any) -> bool:
    """Whether ``channel`` is kombu's Redis channel (the only broker whose queues and
    unacknowledged messages can be read from outside a worker)."""
    return isinstance(channel, kombu_redis.Channel)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _loads(raw: Any) -> Any:
    try:
        return loads(_text(raw))
    except Exception:  # someone else's key or a torn write: not ours to read
        return None

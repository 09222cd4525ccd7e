"""The match log as it is written while the match runs (one ``MatchEvent`` row per call)."""

from __future__ import annotations

import json
import time
from typing import Any

from arena.matches.models import MatchEvent

#: A stored state keeps each top-level field up to this size; bigger ones are summarised (a
#: poker ``history`` can reach 100 KB a call, which would make one match's log tens of MB).
PAYLOAD_FIELD_LIMIT_BYTES = 4096


def compact_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """The log entry as stored: oversized payload fields replaced by a note saying so."""
    payload = entry.get("payload")
    if not isinstance(payload, dict):
        return entry
    compact = {}
    for key, value in payload.items():
        size = len(json.dumps(value, default=str))
        if size > PAYLOAD_FIELD_LIMIT_BYTES:
            count = f"{len(value)} items, " if isinstance(value, list | dict) else ""
            compact[key] = f"[{count}{size:,} bytes: not stored]"
        else:
            compact[key] = value
    return {**entry, "payload": compact}


class EventWriter:
    """Stores the referee's log entries while the match runs, so the page can show them live.

    The referee adds ``action`` and ``illegal`` to an entry after announcing it, so the newest
    entry is held back until the next one arrives (or the match ends).
    """

    flush_every_s = 0.5

    def __init__(self, match_id: int) -> None:
        self.match_id = match_id
        self.pending: list[dict[str, Any]] = []
        self.last_flush = time.monotonic()

    def __call__(self, entry: dict[str, Any]) -> None:
        self.pending.append(entry)
        if time.monotonic() - self.last_flush >= self.flush_every_s:
            self.flush(keep_last=True)

    def flush(self, *, keep_last: bool = False) -> None:
        ready = self.pending[:-1] if keep_last else self.pending
        if ready:
            MatchEvent.objects.bulk_create(
                [
                    MatchEvent(
                        match_id=self.match_id,
                        seq=entry.get("seq", 0),
                        seat=entry.get("seat"),
                        data=compact_entry(entry),
                    )
                    for entry in ready
                ],
                ignore_conflicts=True,
            )
            self.pending = self.pending[len(ready) :]
        self.last_flush = time.monotonic()

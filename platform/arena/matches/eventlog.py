"""The match log as it is written while the match runs (one ``MatchEvent`` row per call).

Entries carry what agents sent (replies, prints, error texts), so everything is hostile data:
``json_safe`` turns any value into one every database stores (finite numbers, bounded depth and
size, valid UTF-8 without NUL), and the writer never raises: an entry that still cannot be stored
is replaced by a marked, truncated one. Storing the log can never fail the match, except that an
attempt whose entries were lost because the database was away is played again (its log has a gap).
"""

from __future__ import annotations

import json
import logging
import math
import time
from typing import Any

from django.db import transaction

from arena.db_outage import OutageLog, database_unreachable
from arena.matches.models import MatchEvent
from games.core import LogEntry

logger = logging.getLogger(__name__)
#: While the database is away every flush fails: one line per match and cause, not a traceback
#: per entry (a 30-second outage once wrote 2 MB of them for two matches).
_outage_log = OutageLog(logger)

#: Containers deeper than this are replaced by a note (a 950-deep list once froze a match).
MAX_DEPTH = 24
#: A string longer than this is cut, and the cut marked.
MAX_STRING_CHARS = 64 * 1024
#: A stored entry larger than this (as JSON) is replaced by a marked, truncated one.
MAX_ENTRY_BYTES = 256 * 1024
#: Containers with more items than this keep the first ones and a note.
MAX_ITEMS = 10_000
#: Integers beyond what PostgreSQL's jsonb and every JSON reader handle are stored as text.
MAX_SAFE_INT = 2**63 - 1

#: A stored state keeps each top-level field up to this size; bigger ones are summarised (a
#: poker ``history`` can reach 100 KB a call, which would make one match's log tens of MB).
PAYLOAD_FIELD_LIMIT_BYTES = 4096


def text_safe(value: str, *, limit: int = MAX_STRING_CHARS) -> str:
    """A string every database stores: lone surrogates and NUL replaced, cut at ``limit``."""
    # Most texts of a match log are short ASCII: nothing to replace (isascii costs nothing, the
    # NUL search one pass in C). This was a tenth of a ranked match's worker CPU.
    if type(value) is str and value.isascii() and len(value) <= limit and "\x00" not in value:
        return value
    if len(value) > limit:
        value = f"{value[:limit]}[... {len(value) - limit:,} more characters cut]"
    # Lone surrogates ('\ud800') cannot be encoded as UTF-8; PostgreSQL refuses NUL in text.
    return value.encode("utf-8", "replace").decode("utf-8").replace("\x00", "\ufffd")


def json_safe(value: Any, *, max_depth: int = MAX_DEPTH) -> Any:
    """``value`` made storable as JSON anywhere: finite numbers only (others become a string
    saying what they were), strings through ``text_safe``, containers at most ``max_depth``
    deep and ``MAX_ITEMS`` long, keys as strings, anything else as its type's name. Never
    raises, and never recurses deeper than ``max_depth``."""
    return _safe(value, max_depth)


def _safe(value: Any, depth: int) -> Any:
    if type(value) is str:  # the commonest, first (a subclass takes the general path below)
        return text_safe(value)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
            return int(value)
        return f"[integer of {value.bit_length()} bits: not stored]"
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else repr(value)
    if isinstance(value, str):
        return text_safe(value)
    if isinstance(value, dict | list | tuple):
        if depth <= 0:
            return f"[{type(value).__name__} nested deeper than {MAX_DEPTH} levels: not stored]"
        if isinstance(value, dict):
            items = list(value.items())
            safe = {_key(k): _safe(v, depth - 1) for k, v in items[:MAX_ITEMS]}
            if len(items) > MAX_ITEMS:
                safe["[cut]"] = f"{len(items) - MAX_ITEMS:,} more keys not stored"
            return safe
        kept = [_safe(v, depth - 1) for v in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            kept.append(f"[{len(value) - MAX_ITEMS:,} more items not stored]")
        return kept
    return f"[{type(value).__name__}: not stored]"


def _key(key: Any) -> str:
    if type(key) is str and len(key) <= 256 and key.isascii() and "\x00" not in key:
        return key
    return text_safe(key if isinstance(key, str) else str(_safe(key, 0)), limit=256)


def entry_safe(entry: dict[str, Any]) -> dict[str, Any]:
    """The log entry as stored: ``json_safe`` and compact, or, when even that is too big or
    fails, a marked entry that keeps its place (seq, seat, method) and a truncated preview."""
    try:
        safe = compact_entry(json_safe(entry))
        text = json.dumps(safe, allow_nan=False)
        if len(text.encode("utf-8")) <= MAX_ENTRY_BYTES:
            return safe
        reason = f"{len(text):,} characters as JSON, over the {MAX_ENTRY_BYTES:,} limit"
        preview = text[:4096]
    except Exception as exc:  # json_safe should make this impossible; never fail the match
        logger.exception("a log entry could not be made storable")
        reason, preview = f"could not be stored ({type(exc).__name__})", ""
    return _marked(entry, reason, preview)


def _marked(entry: Any, reason: str, preview: str) -> dict[str, Any]:
    keep = {}
    if isinstance(entry, dict):
        for key in ("seq", "seat", "round", "turn", "method"):
            if key in entry:
                keep[key] = _safe(entry[key], 0)
    return {**keep, "truncated": True, "note": f"log entry cut: {reason}", "preview": preview}


def compact_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """The log entry as stored: oversized payload fields replaced by a note saying so."""
    payload = entry.get("payload")
    if not isinstance(payload, dict):
        return entry
    if len(json.dumps(payload, default=str)) <= PAYLOAD_FIELD_LIMIT_BYTES:
        return entry  # no field can be over the limit: one encoding instead of one a field
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
        self.pending: list[LogEntry] = []
        self.last_flush = time.monotonic()
        #: Entries lost because the database could not be reached: the log has a gap, so the
        #: match is not recorded from this attempt (``matches.play.match_play``).
        self.lost_to_outage = 0

    def __call__(self, entry: LogEntry) -> None:
        self.pending.append(entry)
        if time.monotonic() - self.last_flush >= self.flush_every_s:
            self.flush(keep_last=True)

    def flush(self, *, keep_last: bool = False) -> None:
        """Store the pending entries (all of them, or all but the newest). Never raises: an
        entry the database refuses is stored as a marked one, and if even that fails the
        entries are dropped with a log line, so the match is still recorded."""
        ready = self.pending[:-1] if keep_last else self.pending
        self.pending = self.pending[len(ready) :]
        self.last_flush = time.monotonic()
        if not ready:
            return
        rows = [self._row(entry) for entry in ready]
        try:
            with transaction.atomic():  # a savepoint: a refusal leaves the connection usable
                MatchEvent.objects.bulk_create(rows, ignore_conflicts=True)
            return
        except Exception as exc:
            if self._unreachable(exc, len(rows)):
                return
            logger.exception("match %s: storing %d log entries failed", self.match_id, len(rows))
        for entry, row in zip(ready, rows, strict=True):  # one by one: keep what can be kept
            try:
                with transaction.atomic():
                    MatchEvent.objects.bulk_create([row], ignore_conflicts=True)
            except Exception:
                try:
                    row.data = _marked(entry, "the database refused it", "")
                    with transaction.atomic():
                        MatchEvent.objects.bulk_create([row], ignore_conflicts=True)
                except Exception as exc:
                    if self._unreachable(exc, 1):
                        continue
                    logger.exception("match %s: log entry %s dropped", self.match_id, row.seq)

    def _unreachable(self, exc: BaseException, count: int) -> bool:
        """The database is away: the entries are dropped (no use trying them one by one), the
        loss counted, and said in one line per match now and then, without a traceback."""
        if not database_unreachable(exc):
            return False
        self.lost_to_outage += count
        _outage_log(
            logging.WARNING,
            f"match {self.match_id}",
            "database",
            "match %s: log entries dropped, the database cannot be reached (%s: %s)",
            self.match_id,
            type(exc).__name__,
            str(exc).strip().splitlines()[0][:200] if str(exc).strip() else "",
        )
        return True

    def _row(self, entry: Any) -> MatchEvent:
        data = entry_safe(entry) if isinstance(entry, dict) else _marked(None, "not a dict", "")
        seq, seat = data.get("seq"), data.get("seat")
        return MatchEvent(
            match_id=self.match_id,
            seq=seq if isinstance(seq, int) and 0 <= seq < 2**31 else 0,
            seat=seat if isinstance(seat, int) and -(2**31) < seat < 2**31 else None,
            data=data,
        )

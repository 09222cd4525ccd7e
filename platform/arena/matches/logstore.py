"""Where a match's per-call log lives, and for how long (one compressed blob a finished match).

While a match runs, each call is a ``MatchEvent`` row, so the match page can show it live. When
the match ends, ``match_log_archive`` packs the rows into one gzip-compressed JSON-lines blob
(``MatchLog``) and drops them: a 100-hand poker match is about a thousand rows, a million
matches would be a billion. ``match_log_entries`` reads either form, so readers never care.

Retention (settings, 0 = keep): ``ARENA_RANKED_PRINTS_RETENTION_DAYS`` keeps ranked matches'
prints (none are captured when it is 0) and strips them from stored logs after that many days;
``ARENA_RANKED_LOG_RETENTION_DAYS`` deletes ranked matches' per-call logs after that many days
(the result, the rounds and the ratings stay). ``match_logs_maintain`` applies both; beat runs it.
"""

from __future__ import annotations

import gzip
import json
import logging
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, cast

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.matches.eventlog import json_safe
from arena.matches.models import Match, MatchEvent, MatchLog
from games.core import LogEntry

logger = logging.getLogger(__name__)


def encode_log(entries: Sequence[Mapping[str, Any]]) -> tuple[bytes, int]:
    """The entries as a gzip-compressed JSON-lines blob; returns (blob, uncompressed bytes)."""
    raw = "".join(
        json.dumps(json_safe(e), allow_nan=False, separators=(",", ":")) + "\n" for e in entries
    ).encode()
    return gzip.compress(raw, compresslevel=6), len(raw)


def decode_log(blob: bytes | memoryview) -> list[LogEntry]:
    """The entries of a blob written by ``encode_log``."""
    text = gzip.decompress(bytes(blob)).decode()
    return [cast(LogEntry, json.loads(line)) for line in text.splitlines() if line]


def match_log_entries(match: Match) -> list[LogEntry]:
    """Every stored log entry of ``match`` in ``seq`` order, raw (privacy is the selectors')."""
    # Rows first: the archive writes the blob and drops the rows in one transaction, so a reader
    # that finds no rows will find the blob (the other order could miss both for a moment).
    # Stored as the referee wrote them (through ``eventlog.entry_safe``): log entries.
    rows = [
        cast(LogEntry, dict(d))
        for d in MatchEvent.objects.filter(match=match).values_list("data", flat=True)
    ]
    if rows:
        return rows
    stored = MatchLog.objects.filter(match=match).values_list("data", flat=True).first()
    return decode_log(stored) if stored is not None else []


@transaction.atomic
def match_log_archive(*, match_id: int) -> MatchLog | None:
    """Pack a finished match's event rows into one blob and drop the rows (idempotent)."""
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None or not match.is_done:
        return None
    existing = MatchLog.objects.filter(match=match).first()
    rows = MatchEvent.objects.filter(match=match)
    if existing is not None:
        rows.delete()  # a second delivery: the blob is already there
        return existing
    entries = [dict(d) for d in rows.values_list("data", flat=True)]
    blob, raw_bytes = encode_log(entries)
    stored = MatchLog.objects.create(
        match=match,
        data=blob,
        entries=len(entries),
        raw_bytes=raw_bytes,
        has_prints=any(e.get("stdout") for e in entries),
    )
    rows.delete()
    return stored


def match_log_delete(*, match: Match) -> None:
    """Forget a match's log in both forms (a replayed attempt logs from scratch)."""
    MatchEvent.objects.filter(match=match).delete()
    MatchLog.objects.filter(match=match).delete()


def match_logs_maintain(*, now: Any = None) -> dict[str, int]:
    """Archive finished matches left with rows (a worker died after recording), then apply the
    ranked retention settings. Returns what it did, per kind."""
    now = now or timezone.now()
    leftover = (
        MatchEvent.objects.filter(match__in=Match.objects.done())
        .order_by()  # no ordering column, or distinct() keeps one per row
        .values_list("match_id", flat=True)
        .distinct()
    )
    archived = 0
    for match_id in list(leftover[:1000]):
        if match_log_archive(match_id=match_id) is not None:
            archived += 1
    stripped = deleted = 0
    ranked = MatchLog.objects.filter(match__kind=Match.Kind.RANKED)
    prints_days = settings.ARENA_RANKED_PRINTS_RETENTION_DAYS
    if prints_days > 0:
        old = ranked.filter(has_prints=True, match__finished__lt=now - timedelta(days=prints_days))
        for stored in old.iterator():
            entries = [{**e, "stdout": None} for e in decode_log(stored.data)]
            stored.data, stored.raw_bytes = encode_log(entries)
            stored.has_prints = False
            stored.save(update_fields=["data", "raw_bytes", "has_prints"])
            stripped += 1
    log_days = settings.ARENA_RANKED_LOG_RETENTION_DAYS
    if log_days > 0:
        deleted, _ = ranked.filter(match__finished__lt=now - timedelta(days=log_days)).delete()
    if archived or stripped or deleted:
        logger.info(
            "match logs: %s archived, %s stripped of prints, %s deleted",
            archived,
            stripped,
            deleted,
        )
    return {"archived": archived, "prints_stripped": stripped, "deleted": deleted}

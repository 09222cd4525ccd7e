"""Whole boards as tables, intervals included: what the CSV and JSON downloads hold.

A game's ladder is read in one query (every row, in the ladder's order) and its ranks and rank
ranges worked out here (``games.core.ranking.rank_ranges``); a board across games is read from
its stored rows (``unified.unified_board``). Downloads are not the pages' hot path: they read a
whole board once.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from django.conf import settings

from arena.ratings import intervals, unified
from arena.ratings.models import Rating
from arena.ratings.selectors import ROW_FIELDS, ladder_ordering, ladder_row
from games.core import get_game_spec
from games.core.ranking import rank_ranges

#: The columns of a game's ladder, in order.
LADDER_COLUMNS = (
    "rank",
    "rank_best",
    "rank_worst",
    "agent",
    "agent_id",
    "submission",
    "owner",
    "kind",
    "model",
    "rating",
    "rating_low",
    "rating_high",
    "games",
    "wins",
    "losses",
    "draws",
    "provisional",
    "active",
    "mean_payoff",
    "payoff_low",
    "payoff_high",
    "ranked",
)


def ladder_table(*, game: str) -> dict[str, Any]:
    """Every row of ``game``'s current ladder, best first, with intervals and rank ranges."""
    spec = get_game_spec(game)
    min_matches = settings.ARENA_RANKING_MIN_MATCHES
    found = list(
        Rating.objects.filter(game=game, game_version=spec.version)
        .order_by(*ladder_ordering(spec.ranking, min_matches))
        .values(*ROW_FIELDS)
    )
    rows = [
        ladder_row(r, rank, spec.ranking, min_matches, spec.ladder_figures)
        for rank, r in enumerate(found, start=1)
    ]
    low_key, high_key = intervals.BOUNDS[spec.ranking]
    taking_part = [
        i
        for i, (r, row) in enumerate(zip(found, rows, strict=True))
        if row["ranked"] and r[low_key] is not None and r[high_key] is not None
    ]
    spans = rank_ranges([(found[i][low_key], found[i][high_key]) for i in taking_part])
    for i, span in zip(taking_part, spans, strict=True):
        rows[i]["rank_best"], rows[i]["rank_worst"] = span.best, span.worst
    return {
        "game": game,
        "version": spec.version,
        "ranking": spec.ranking,
        "confidence": 0.95,
        "columns": list(LADDER_COLUMNS),
        "rows": [{column: row[column] for column in LADDER_COLUMNS} for row in rows],
    }


def unified_table(*, board: str) -> dict[str, Any]:
    """Every row of a board across games, with the per-game columns flattened."""
    found = unified.unified_board(board=board, limit=1_000_000)
    columns = [
        "rank",
        "rank_best",
        "rank_worst",
        "key",
        "label",
        "rating",
        "rating_low",
        "rating_high",
        "matches",
    ]
    for game in found.games:
        columns += [f"{game}_rating", f"{game}_low", f"{game}_high", f"{game}_matches"]
    rows = []
    for row in found.rows:
        flat = {column: row.get(column) for column in columns[:9]}
        for game in found.games:
            cell = row["per_game"].get(game) or {}
            for part in ("rating", "low", "high", "matches"):
                flat[f"{game}_{part}"] = cell.get(part)
        rows.append(flat)
    return {**found.as_dict(), "confidence": 0.95, "columns": columns, "rows": rows}


def as_csv(columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> str:
    """The table as CSV text (a header line, then one line a row; empty cells for none)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return out.getvalue()


def _cell(value: Any) -> Any:
    """A CSV cell: empty for none; a name a user chose that a spreadsheet would run as a
    formula (``=``, ``+``, ``-``, ``@`` first) is quoted with a leading apostrophe."""
    if value is None:
        return ""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value

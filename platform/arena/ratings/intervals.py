"""Rank ranges of a leaderboard page, read from the intervals stored on the rating rows.

An entry's rank range is ``best``–``worst``: it is surely behind every entry whose 95 %
interval lies wholly above its own and surely ahead of every one whose interval lies wholly
below (``games.core.ranking.rank_ranges``, LMArena's rule). On an Elo ladder the interval is the
rating's (``Rating.rating_low``/``rating_high``); on a mean-payoff ladder it is the mean payoff's
Student-t interval (``payoff_low``/``payoff_high``), among the entries ranked there.

Cost: one query for a page, whatever the ladder's size (``ladder_counts`` gives the ladder's
size and the number of entries ranked in the same scan, so the page that counts its rows anyway
needs no third count here). Each row needs two counts (intervals
wholly above its own, wholly below); the page's thresholds are sent as one sorted list and the
database puts every interval bound in its bucket (PostgreSQL's ``width_bucket``, on the indexes
``rating_by_low``/``rating_by_high`` and their payoff twins), so 50 rows cost one scan of the
bounds between the page's extremes and ~50 counts come back, not the bounds themselves. Other
databases (SQLite: development and the small-ladder tests) return the bounds and Python buckets
them.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any

from django.db import connection
from django.db.models import Count, Q, QuerySet

from arena.ratings.models import Rating
from games.core.ranking import RankRange

#: The stored bounds each measure's rank range is counted on.
BOUNDS = {"elo": ("rating_low", "rating_high"), "mean_payoff": ("payoff_low", "payoff_high")}


def _base(ranking: str, min_matches: int) -> tuple[str, list[Any]]:
    """The WHERE clause of the entries that take part in a ladder's ranking (after game and
    version; a condition on a bound also keeps out the rows without one). Only columns of the
    bound's index, so each part is an index-only scan: the rows are wide."""
    if ranking == "mean_payoff":
        return " AND games >= %s", [min_matches]
    return "", []


def ladder_counts(rows: QuerySet[Rating], *, ranking: str, min_matches: int) -> tuple[int, int]:
    """``rows``' size and how many of them take part in the ranking with an interval (the
    ``total`` of ``page_rank_ranges``), in one index-only scan of the measure's low bounds."""
    low_col = BOUNDS[ranking][0]
    ranked = Q(games__gte=min_matches) if ranking == "mean_payoff" else None
    counts = rows.aggregate(total=Count("*"), ranked=Count(low_col, filter=ranked))
    return int(counts["total"]), int(counts["ranked"])


def page_rank_ranges(
    *,
    game: str,
    version: int,
    ranking: str,
    min_matches: int,
    bounds: dict[int, tuple[float | None, float | None]],
    ranked: dict[int, bool],
    total: int | None = None,
) -> dict[int, RankRange]:
    """The rank range of each row of a page: ``bounds`` maps a rating id to its interval's
    (low, high) for the ladder's measure, ``ranked`` whether the row takes part in the ranking.
    Rows without an interval or not ranked get none. ``total``, the entries ranked with an
    interval (``ladder_counts``), is counted here when not given."""
    wanted = {
        row_id: (low, high)
        for row_id, (low, high) in bounds.items()
        if ranked.get(row_id) and low is not None and high is not None
    }
    if not wanted:
        return {}
    low_col, high_col = BOUNDS[ranking]
    highs = sorted({high for _, high in wanted.values()})
    lows = sorted({low for low, _ in wanted.values()})
    where, params = _base(ranking, min_matches)
    table = Rating._meta.db_table
    head = f"FROM {table} WHERE game = %s AND game_version = %s{where}"  # noqa: S608
    counted = f"{head} AND {low_col} IS NOT NULL"
    base_params: list[Any] = [game, version, *params]
    if connection.vendor == "postgresql":
        # Strictly above a high: at least the next float after it (width_bucket counts t <= x).
        # Only the bounds between the page's extremes need a bucket; those beyond them all
        # (most of the ladder, on its first and last pages) are counted into the end buckets
        # without one: width_bucket reads its whole array on every row it is given.
        above_edges = [math.nextafter(h, math.inf) for h in highs]
        sql = (
            f"SELECT 'a', width_bucket({low_col}, %s::float8[]), count(*) {head} "  # noqa: S608
            f"AND {low_col} > %s AND {low_col} < %s GROUP BY 2 "
            f"UNION ALL SELECT 'a', %s::int, count(*) {head} AND {low_col} >= %s "
            f"UNION ALL SELECT 'b', width_bucket({high_col}, %s::float8[]), count(*) {head} "
            f"AND {high_col} >= %s AND {high_col} < %s GROUP BY 2 "
            f"UNION ALL SELECT 'b', 0, count(*) {head} AND {high_col} < %s "
        )
        if total is None:
            sql += f"UNION ALL SELECT 'n', 0, count(*) {counted}"
        args = [
            above_edges,
            *base_params,
            highs[0],
            above_edges[-1],
            len(highs),
            *base_params,
            above_edges[-1],
            lows,
            *base_params,
            lows[0],
            lows[-1],
            *base_params,
            lows[0],
            *(base_params if total is None else []),
        ]
        with connection.cursor() as cursor:
            cursor.execute(sql, args)
            found = cursor.fetchall()
        above_by_bucket = [0] * (len(highs) + 1)
        below_by_bucket = [0] * (len(lows) + 1)
        for part, bucket, count in found:
            if part == "a":
                above_by_bucket[bucket] += count
            elif part == "b":
                below_by_bucket[bucket] += count
            else:
                total = count
    else:
        sql = (
            f"SELECT 'a', {low_col} {head} AND {low_col} > %s "  # noqa: S608
            f"UNION ALL SELECT 'b', {high_col} {head} AND {high_col} < %s "
        )
        args = [*base_params, highs[0], *base_params, lows[-1]]
        if total is None:
            sql += f"UNION ALL SELECT 'n', count(*) {counted}"
            args += base_params
        with connection.cursor() as cursor:
            cursor.execute(sql, args)
            found = cursor.fetchall()
        above_by_bucket = [0] * (len(highs) + 1)
        below_by_bucket = [0] * (len(lows) + 1)
        for part, value, *_ in found:
            if part == "a":
                # How many of the page's highs lie strictly below this low.
                above_by_bucket[bisect_left(highs, value)] += 1
            elif part == "b":
                below_by_bucket[_count_at_most(lows, value)] += 1
            else:
                total = int(value)
    return _ranges(wanted, highs, lows, above_by_bucket, below_by_bucket, total or 0)


def _count_at_most(sorted_values: Sequence[float], value: float) -> int:
    """How many of ``sorted_values`` are <= ``value`` (``width_bucket``'s bucket number)."""
    return bisect_right(sorted_values, value)


def _ranges(
    wanted: dict[int, tuple[float, float]],
    highs: list[float],
    lows: list[float],
    above_by_bucket: list[int],
    below_by_bucket: list[int],
    total: int,
) -> dict[int, RankRange]:
    """Turn bucket counts into each row's two counts.

    ``above_by_bucket[k]``: bounds ``low_j`` strictly above exactly the first ``k`` of the
    page's ``highs``; a row with high ``highs[i]`` is surely behind those with ``k > i``.
    ``below_by_bucket[k]``: bounds ``high_j`` at or above exactly the first ``k`` of ``lows``;
    a row with low ``lows[i]`` is surely ahead of those with ``k <= i``.
    """
    above_from = [0] * (len(highs) + 2)
    for k in range(len(highs), -1, -1):
        above_from[k] = above_from[k + 1] + above_by_bucket[k]
    below_upto = [0] * (len(lows) + 1)
    running = 0
    for k in range(len(lows) + 1):
        below_upto[k] = running
        running += below_by_bucket[k]
    ranges = {}
    for row_id, (low, high) in wanted.items():
        i = bisect_left(highs, high)
        j = bisect_left(lows, low)
        above = above_from[i + 1]
        below = below_upto[j + 1]
        ranges[row_id] = RankRange(1 + above, max(1 + above, total - below))
    return ranges

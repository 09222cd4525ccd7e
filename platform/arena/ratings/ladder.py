"""Pure arithmetic of a ladder row (no Django): how one rated match changes the two rows and
their pair's record (``rate_pair``, ``fold_result``, ``settle``, ``pair_record_counts``), recent
load and recent opponents. ``services.rating_apply`` calls it inside the Elo transaction on the
stored rows; the benches fold their simulated matches with it into ``Row``s. The measures
themselves (Elo, mean payoff with its interval, from a row's running sums) are
``games.core.ranking``'s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from games.core.ranking import (
    ELO_SCORES,
    ELO_START,
    ELO_START_DEVIATION,
    Z_95,
    EloSide,
    elo_deviation_update,
    elo_interval,
    elo_update,
    payoff_summary_of_sums,
)

#: "Recent" as matchmaking means it: a game counts exp(-age / RECENT) of a game.
RECENT = timedelta(hours=24)
#: How many latest opponents a row remembers (no immediate rematch; vary opponents).
RECENT_OPPONENTS_KEPT = 16


def decayed_load(load: float, since: datetime | None, now: datetime) -> float:
    """``load`` (valid at ``since``) as seen at ``now``: each game fades as exp(-age / RECENT)."""
    return load_after(load, None if since is None else (now - since).total_seconds())


def load_after(load: float, age_s: float | None) -> float:
    """``load`` as seen ``age_s`` seconds after it was valid (None: it never was)."""
    if age_s is None or load <= 0.0:
        return 0.0
    return load * math.exp(-max(0.0, age_s) / RECENT.total_seconds())


def idle_s(last_played: datetime | None, now: datetime) -> float:
    """Seconds since the last rated game ended (infinite when there was none)."""
    return idle_after(None if last_played is None else (now - last_played).total_seconds())


def idle_after(age_s: float | None) -> float:
    """``idle_s`` of an entry whose last rated game ended ``age_s`` seconds ago (None: none)."""
    return math.inf if age_s is None else max(0.0, age_s)


def opponents_after(recent: list[int], opponent: int) -> list[int]:
    """The recent-opponents list (newest first) after a match against ``opponent``."""
    return [opponent, *recent][:RECENT_OPPONENTS_KEPT]


class LadderRow(Protocol):
    """What a ladder row keeps (``models.Rating``'s fields; ``Row`` outside the database)."""

    rating: float
    deviation: float
    rating_low: float
    rating_high: float
    games: int
    wins: int
    losses: int
    draws: int
    payoff_sum: float
    payoff_squares: float
    mean_payoff: float | None
    payoff_low: float | None
    payoff_high: float | None
    #: ``{figure key: [sum, matches]}`` of the game's ladder figures.
    figure_sums: Any
    recent_load: float
    last_played: datetime | None
    recent_opponents: Any


@dataclass
class Row:
    """A ladder row outside the database, as a new ``Rating`` starts (the benches' ladders)."""

    rating: float = ELO_START
    deviation: float = ELO_START_DEVIATION
    rating_low: float = ELO_START - Z_95 * ELO_START_DEVIATION
    rating_high: float = ELO_START + Z_95 * ELO_START_DEVIATION
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    payoff_sum: float = 0.0
    payoff_squares: float = 0.0
    mean_payoff: float | None = None
    payoff_low: float | None = None
    payoff_high: float | None = None
    figure_sums: dict[str, list[float]] = field(default_factory=dict)
    recent_load: float = 0.0
    last_played: datetime | None = None
    recent_opponents: list[int] = field(default_factory=list)


def rate_pair(
    a: LadderRow, b: LadderRow, outcome_a: str
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The new ``(rating, deviation)`` of each side after a match in which ``a`` had
    ``outcome_a`` (``win``, ``draw``, ``loss``): Elo and its error, each side's K from its own
    games before this one."""
    side_a, side_b = EloSide(a.rating, a.games), EloSide(b.rating, b.games)
    new_a, new_b = elo_update(side_a, side_b, ELO_SCORES[outcome_a])
    dev_a, dev_b = elo_deviation_update(side_a, side_b, a.deviation, b.deviation)
    return (new_a, dev_a), (new_b, dev_b)


def fold_result(
    row: LadderRow,
    *,
    rating: float,
    deviation: float,
    outcome: str,
    payoff: float,
    figures: Mapping[str, float],
    opponent: int,
    at: datetime,
) -> None:
    """Fold one rated match into ``row``'s running sums: its new rating and deviation
    (``rate_pair``), the outcome, the payoff, the game's figures this seat reported, recent
    load and opponents. What is derived from the sums is ``settle``'s."""
    row.rating, row.deviation = rating, deviation
    row.games += 1
    row.wins += outcome == "win"
    row.losses += outcome == "loss"
    row.draws += outcome == "draw"
    row.payoff_sum += payoff
    row.payoff_squares += payoff * payoff
    if figures:
        sums = dict(row.figure_sums or {})
        for key, value in figures.items():
            total, matches = sums.get(key, [0.0, 0])
            sums[key] = [total + value, matches + 1]
        row.figure_sums = sums
    row.recent_load = decayed_load(row.recent_load, row.last_played, at) + 1.0
    row.last_played = max(at, row.last_played) if row.last_played else at
    row.recent_opponents = opponents_after(list(row.recent_opponents or ()), opponent)


def settle(row: LadderRow) -> None:
    """What ``row`` shows that its sums determine: the rating's 95 % interval, the mean payoff
    and its interval. ``rating_apply`` settles after each match; a bench folding many matches
    may settle once at the end (the same values)."""
    interval = elo_interval(row.rating, row.deviation)
    row.rating_low, row.rating_high = interval.low, interval.high
    row.mean_payoff = row.payoff_sum / row.games if row.games else None
    summary = payoff_summary_of_sums(row.payoff_sum, row.payoff_squares, row.games)
    row.payoff_low, row.payoff_high = summary.ci_low, summary.ci_high


def pair_record_counts(
    seat0: tuple[int, str], seat1: tuple[int, str]
) -> tuple[tuple[int, int], int, int]:
    """What one match adds to its pair's record, from each seat's ``(submission id,
    outcome)``: the pair ``(first, second)`` in id order, whether the first won (0 or 1) and
    whether it was a draw; the record counts one match more."""
    (first, outcome), (second, _) = sorted((seat0, seat1))
    return (first, second), int(outcome == "win"), int(outcome == "draw")

"""Standings from results: score, tiebreaks and an interval (``docs/tournaments.md``).

Pure: no Django. The tournament pages, the API and ``bench/tournament.py`` all rank through
``standings_compute``, so what is published is what the stored results imply.

* A game gives 1 point for a win, ½ for a draw, 0 for a loss (a forfeit is a loss); a bye gives
  ``bye_points`` (a won pairing).
* Buchholz: the sum of the final scores of the opponents one met, once per game played
  (a bye counts nothing): who had the harder draw.
* Sonneborn-Berger: for each game, the points scored in it times that opponent's final score:
  whom one beat.
* Order: score, then Buchholz, then Sonneborn-Berger, then wins, then entry order.
* Interval: a 95 % Wilson score interval on the points per game played, scaled back to points.
  It treats the games as independent draws of the entrant's strength, which a Swiss only
  approximates (opponents depend on results); it is there to show which places the results
  cannot tell apart (overlapping intervals), not as a precise figure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.959963984540054


@dataclass(frozen=True)
class GameResult:
    """One finished game: who sat in seat 0 and seat 1 and the points each scored (1, ½ or 0;
    ``points_second`` defaults to the rest of the point: a double forfeit scores 0 and 0)."""

    first: int
    second: int
    points_first: float
    points_second: float | None = None


@dataclass
class Standing:
    """One entrant's line of the standings."""

    entrant: int
    rank: int = 0
    score: float = 0.0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    #: The 95 % interval of the score (see the module's docstring).
    score_low: float = 0.0
    score_high: float = 0.0
    #: (opponent, points scored in that game) for each game, in order.
    results: list[tuple[int, float]] = field(default_factory=list)


def wilson_interval(points: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a rate of ``points`` in ``games`` (each worth 0..1)."""
    if games <= 0:
        return 0.0, 1.0
    p = min(max(points / games, 0.0), 1.0)
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def standings_compute(
    entrants: Sequence[int],
    games: Iterable[GameResult],
    *,
    byes: Mapping[int, int] | None = None,
    bye_points: float = 1.0,
) -> list[Standing]:
    """The ranked standings of ``entrants`` (in entry order) after ``games`` and ``byes``
    (entrant → byes received)."""
    rows = {e: Standing(entrant=e) for e in entrants}
    for g in games:
        if g.first not in rows or g.second not in rows:
            raise ValueError(f"game between {g.first} and {g.second}: not both entrants")
        second = 1.0 - g.points_first if g.points_second is None else g.points_second
        if not (0.0 <= g.points_first <= 1.0 and 0.0 <= second <= 1.0):
            raise ValueError(f"points {g.points_first}, {second}: each must be within 0..1")
        for me, other, points in ((g.first, g.second, g.points_first), (g.second, g.first, second)):
            row = rows[me]
            row.games += 1
            row.score += points
            row.results.append((other, points))
            if points > 0.5:
                row.wins += 1
            elif points < 0.5:
                row.losses += 1
            else:
                row.draws += 1
    for e, count in (byes or {}).items():
        if e in rows:
            rows[e].byes += count
            rows[e].score += count * bye_points
    for row in rows.values():
        row.buchholz = sum(rows[o].score for o, _ in row.results)
        row.sonneborn_berger = sum(points * rows[o].score for o, points in row.results)
        from_games = row.score - row.byes * bye_points
        low, high = wilson_interval(from_games, row.games)
        row.score_low = row.byes * bye_points + low * row.games
        row.score_high = row.byes * bye_points + high * row.games
    place = {e: i for i, e in enumerate(entrants)}
    ranked = sorted(
        rows.values(),
        key=lambda r: (-r.score, -r.buchholz, -r.sonneborn_berger, -r.wins, place[r.entrant]),
    )
    for i, row in enumerate(ranked, start=1):
        row.rank = i
    return ranked


def points_of(outcome: str) -> float | None:
    """A seat's points from its stored outcome (``win``/``draw``/``loss``), ``None`` if none."""
    return {"win": 1.0, "draw": 0.5, "loss": 0.0}.get(outcome)

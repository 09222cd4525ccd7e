"""Ladder measures, as pure functions the platform and the command line share.

The rules are described in docs/architecture.md, "Ratings and matchmaking".

A game declares its measure in ``Game.ranking``:

* ``"elo"`` for zero-sum games: a match is won or lost, and Elo on win/draw/loss ranks players;
* ``"mean_payoff"`` for non-zero-sum games (split-or-steal, brinkmanship), where head-to-head
  wins reward a trivial strategy (always-steal never loses a match): players are ranked by their
  mean payoff per match against the field, as Axelrod's tournaments ranked them, each mean with a
  confidence interval, and only once a player has played ``min_matches`` matches.

Nothing here touches a database or plays a match: give it numbers, get numbers back.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist, fmean, stdev
from typing import Generic, TypeVar

#: Matches an agent must have played before it gets a place on a mean-payoff ladder; the same
#: number of games for which an Elo rating is provisional.
DEFAULT_MIN_MATCHES = 20
#: Two-sided confidence of the interval around a mean payoff.
DEFAULT_CONFIDENCE = 0.95

#: Elo as the platform applies it (with the K schedule below): the start, and the
#: games during which a rating is shown as provisional.
ELO_START = 1200.0
ELO_PROVISIONAL_GAMES = 20
#: K shrinks as a player's games grow, K = max(ELO_K_FLOOR, ELO_K_SCALE / (games + ELO_K_OFFSET)),
#: as the USCF's K = 800 / (N + m) does. 700 ≈ 4 · 400 / ln 10 is the step of a stochastic
#: approximation of the logistic model's maximum-likelihood rating after ``games`` even games
#: (each carries Fisher information (ln 10 / 400)² / 4); the offset stands for what is known before
#: the first game and damps the first steps (the first game moves a newcomer by up to 233 points,
#: not 700). A fixed K (40 then 20) keeps newcomers noisy for long: on the ratings-quality bench
#: (``bench/ratings_quality.py``) it ranked 200 agents of sd 400 with Kendall's tau 0.85 after 30
#: games each, where this schedule reaches 0.88, the maximum-likelihood fit of the same games
#: 0.89. The floor keeps an established rating able to follow an agent that changes (house bots
#: are updated in place).
ELO_K_SCALE = 700.0
ELO_K_OFFSET = 3
ELO_K_FLOOR = 16.0

K = TypeVar("K", bound=Hashable)


def student_t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom.

    Exact for 1 and 2 degrees of freedom; the Cornish-Fisher expansion around the normal quantile
    beyond (within 0.2 % of the tables at df = 3, closer as df grows), so no SciPy is needed.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be strictly between 0 and 1, got {p}")
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) * math.sqrt(2 / (4 * p * (1 - p)))
    z = NormalDist().inv_cdf(p)
    n = float(df)
    return (
        z
        + (z**3 + z) / (4 * n)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * n**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * n**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * n**4)
    )


@dataclass(frozen=True)
class PayoffSummary:
    """One agent's payoffs: the mean per match and its Student-t confidence interval.

    ``ci_low``/``ci_high`` are ``None`` below two matches (one sample has no spread).
    ``qualified`` says whether the agent has played the minimum number of matches.
    """

    matches: int
    mean: float
    ci_low: float | None
    ci_high: float | None
    confidence: float
    qualified: bool

    @property
    def half_width(self) -> float | None:
        """Half the interval's width (the "±" figure), ``None`` below two matches."""
        if self.ci_low is None or self.ci_high is None:
            return None
        return (self.ci_high - self.ci_low) / 2


def payoff_summary(
    payoffs: Sequence[float],
    *,
    min_matches: int = DEFAULT_MIN_MATCHES,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PayoffSummary:
    """Mean payoff per match with a ``confidence`` interval, and whether ``min_matches`` is met."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    n = len(payoffs)
    if n == 0:
        return PayoffSummary(0, 0.0, None, None, confidence, qualified=min_matches <= 0)
    mean = fmean(payoffs)
    low: float | None = None
    high: float | None = None
    if n >= 2:
        half = student_t_quantile(0.5 + confidence / 2, n - 1) * stdev(payoffs) / math.sqrt(n)
        low, high = mean - half, mean + half
    return PayoffSummary(n, mean, low, high, confidence, qualified=n >= min_matches)


def payoff_summary_of_sums(
    total: float,
    squares: float,
    matches: int,
    *,
    min_matches: int = DEFAULT_MIN_MATCHES,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PayoffSummary:
    """``payoff_summary`` from running sums (a ladder row keeps the sum of payoffs, the sum of
    their squares and their count, not the list)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    if matches <= 0:
        return PayoffSummary(0, 0.0, None, None, confidence, qualified=min_matches <= 0)
    mean = total / matches
    if matches < 2:
        return PayoffSummary(matches, mean, None, None, confidence, matches >= min_matches)
    variance = max(0.0, (squares - matches * mean * mean) / (matches - 1))
    half = student_t_quantile(0.5 + confidence / 2, matches - 1) * math.sqrt(variance / matches)
    return PayoffSummary(
        matches, mean, mean - half, mean + half, confidence, qualified=matches >= min_matches
    )


@dataclass(frozen=True)
class PayoffStanding(Generic[K]):
    """A place on a mean-payoff ladder. ``rank`` is 1-based, ``None`` until qualified."""

    agent: K
    rank: int | None
    summary: PayoffSummary


def rank_by_mean_payoff(
    payoffs: Mapping[K, Sequence[float]],
    *,
    min_matches: int = DEFAULT_MIN_MATCHES,
    confidence: float = DEFAULT_CONFIDENCE,
) -> list[PayoffStanding[K]]:
    """Order agents by mean payoff per match: qualified agents first, ranked 1, 2, …

    ``payoffs`` maps each agent to its payoff in every match it played (its own score, not the
    margin over the opponent). Agents below ``min_matches`` follow, unranked, in the same order.
    Equal means rank by more matches played, then by the agent key, so the order is total.
    """
    summaries = {
        agent: payoff_summary(samples, min_matches=min_matches, confidence=confidence)
        for agent, samples in payoffs.items()
    }
    order = sorted(
        summaries,
        key=lambda a: (
            not summaries[a].qualified,
            -summaries[a].mean,
            -summaries[a].matches,
            str(a),
        ),
    )
    standings: list[PayoffStanding[K]] = []
    rank = 0
    for agent in order:
        summary = summaries[agent]
        if summary.qualified:
            rank += 1
        standings.append(PayoffStanding(agent, rank if summary.qualified else None, summary))
    return standings


def elo_expected(rating: float, opponent: float) -> float:
    """The expected score of ``rating`` against ``opponent``."""
    return 1.0 / (1.0 + 10 ** ((opponent - rating) / 400))


def elo_k(games: int) -> float:
    """K for a player who has played ``games`` rated games before this one."""
    return max(ELO_K_FLOOR, ELO_K_SCALE / (max(games, 0) + ELO_K_OFFSET))


def elo_is_provisional(games: int) -> bool:
    """Whether a rating with ``games`` rated games behind it is still shown as provisional."""
    return games < ELO_PROVISIONAL_GAMES


#: The score of an outcome in the Elo update (a forfeit is recorded as a loss).
ELO_SCORES = {"win": 1.0, "draw": 0.5, "loss": 0.0}


@dataclass(frozen=True)
class EloSide:
    """What the Elo update needs to know about one side: its rating and its rated games."""

    rating: float
    games: int


def elo_update(a: EloSide, b: EloSide, score_a: float) -> tuple[float, float]:
    """New ratings of ``a`` and ``b`` after a game where ``a`` scored ``score_a`` (1, ½ or 0).

    The one Elo rule of the project (the ladder, ``arena simulate``, the benches): each side
    moves by its own ``elo_k``, so the sum is not conserved when their games differ.
    """
    if score_a not in (0.0, 0.5, 1.0):
        raise ValueError(f"score must be 0, 0.5 or 1, got {score_a}")
    expected_a = elo_expected(a.rating, b.rating)
    new_a = a.rating + elo_k(a.games) * (score_a - expected_a)
    new_b = b.rating + elo_k(b.games) * ((1.0 - score_a) - (1.0 - expected_a))
    return new_a, new_b


def elo_ratings(results: Iterable[tuple[K, K, float]]) -> dict[K, float]:
    """Elo after ``(a, b, score_of_a)`` results in match order (1 win, ½ draw, 0 loss), each
    player starting at ``ELO_START``."""
    ratings: dict[K, float] = {}
    games: dict[K, int] = {}
    for a, b, score in results:
        side_a = EloSide(ratings.get(a, ELO_START), games.get(a, 0))
        side_b = EloSide(ratings.get(b, ELO_START), games.get(b, 0))
        ratings[a], ratings[b] = elo_update(side_a, side_b, score)
        games[a] = side_a.games + 1
        games[b] = side_b.games + 1
    return ratings


# --- Intervals on Elo ratings -------------------------------------------------------------------
#
# An Elo rating is an estimate of a strength, and its error has a variance that can be carried
# along the same updates, match by match, in the row that holds the rating: the extended-Kalman
# view of Elo (Glickman's Glicko, 1999, is the Bayesian filter of the same model; Ingram, "How
# to extend Elo: a Bayesian perspective", 2021). Linearise the update r' = r + K (s - E(r, r_o))
# around the true strengths: with c = ln 10 / 400 and v = E (1 - E) (the variance of a result
# and, times c, the slope of E), the error e of the rating moves as
#
#     e' = (1 - K c v) e + K c v e_o + K (s - E)
#
# so its variance, with the opponent's error taken as independent of one's own, moves as
#
#     σ'² = (1 - K c v)² σ² + (K c v)² σ_o² + K² v.
#
# This is the variance of *this* estimator (the K schedule, the floor), not of an idealised
# posterior: with K at its floor the rating keeps a stationary noise (σ² → K / (2 c), 37 points
# at K = 16) that no count of games removes, and the interval says so. The start is the spread
# of strengths a newcomer may have (``ELO_START_DEVIATION``). Cost: a few multiplications per
# side per match, in the transaction that applies Elo; the interval is then read from the row.

#: ln 10 / 400: the slope of the logistic curve of Elo (per rating point) at even odds ÷ ¼.
ELO_SLOPE = math.log(10) / 400
#: The deviation of a newcomer's rating: how far a strength may lie from the start. Glicko's
#: 350, which is also about the spread of the house bots and agents on our ladders (their
#: strengths spread 300 to 600 points on ``bench/ratings_quality.py``'s populations).
ELO_START_DEVIATION = 350.0
#: Two-sided 95 % normal quantile: an interval is rating ± 1.96 σ.
Z_95 = NormalDist().inv_cdf(0.975)


def elo_variance_after(
    variance: float, opponent_variance: float, rating: float, opponent: float, games: int
) -> float:
    """The error variance of a rating after one more game against ``opponent`` (see above).

    ``games`` is the rated games played before this one (it sets K, as in ``elo_update``).
    """
    k = elo_k(games)
    expected = elo_expected(rating, opponent)
    spread = expected * (1.0 - expected)
    gain = k * ELO_SLOPE * spread
    return (1.0 - gain) ** 2 * variance + gain**2 * opponent_variance + k * k * spread


def elo_deviation_update(
    a: EloSide, b: EloSide, deviation_a: float, deviation_b: float
) -> tuple[float, float]:
    """The deviations (standard errors, rating points) of ``a`` and ``b`` after their game,
    from the ratings and games *before* it (what ``elo_update`` is given)."""
    var_a, var_b = deviation_a**2, deviation_b**2
    new_a = elo_variance_after(var_a, var_b, a.rating, b.rating, a.games)
    new_b = elo_variance_after(var_b, var_a, b.rating, a.rating, b.games)
    return math.sqrt(new_a), math.sqrt(new_b)


@dataclass(frozen=True)
class Interval:
    """A two-sided interval around an estimate (``low`` ≤ ``estimate`` ≤ ``high``)."""

    estimate: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        """The "±" figure."""
        return (self.high - self.low) / 2

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies inside (bounds included)."""
        return self.low <= value <= self.high


def elo_interval(rating: float, deviation: float, *, z: float = Z_95) -> Interval:
    """The interval ``rating ± z · deviation`` (95 % by default)."""
    return Interval(rating, rating - z * deviation, rating + z * deviation)


def elo_ratings_with_deviations(
    results: Iterable[tuple[K, K, float]],
) -> dict[K, tuple[float, float]]:
    """``elo_ratings`` with each rating's deviation: ``{player: (rating, deviation)}``."""
    state: dict[K, tuple[float, float, int]] = {}
    for a, b, score in results:
        ra, da, ga = state.get(a, (ELO_START, ELO_START_DEVIATION, 0))
        rb, db, gb = state.get(b, (ELO_START, ELO_START_DEVIATION, 0))
        side_a, side_b = EloSide(ra, ga), EloSide(rb, gb)
        new_ra, new_rb = elo_update(side_a, side_b, score)
        new_da, new_db = elo_deviation_update(side_a, side_b, da, db)
        state[a] = (new_ra, new_da, ga + 1)
        state[b] = (new_rb, new_db, gb + 1)
    return {player: (r, d) for player, (r, d, _) in state.items()}


@dataclass(frozen=True)
class RankRange:
    """The places an entry may hold given the intervals: ``best``–``worst`` (1-based).

    An entry is surely behind every other whose interval lies wholly above its own, and
    surely ahead of every one whose interval lies wholly below (LMArena's rule).
    """

    best: int
    worst: int

    def __str__(self) -> str:
        return str(self.best) if self.best == self.worst else f"{self.best}–{self.worst}"


def rank_ranges(intervals: Sequence[tuple[float, float]]) -> list[RankRange]:
    """The ``RankRange`` of each ``(low, high)`` among all of them, in O(n log n)."""
    lows = sorted(low for low, _ in intervals)
    highs = sorted(high for _, high in intervals)
    n = len(intervals)
    ranges = []
    for low, high in intervals:
        above = n - bisect_right(lows, high)  # wholly above: low_j > high
        below = bisect_left(highs, low)  # wholly below: high_j < low
        ranges.append(RankRange(1 + above, n - below))
    return ranges

"""Elo arithmetic (docs/architecture.md, "Ratings and matchmaking"), pure: no Django.

Start 1200; each side's K shrinks with the rated games it has played
(``games.core.ranking.elo_k``: 233 for a newcomer's first game, 54 after 10, 21 after 30, 16
from 41 on), so a newcomer finds its level in a few games and an established rating stays
steady; a rating is shown as provisional for its first 20 games. A draw scores ½; a forfeit is a
loss (the referee already records it as one). The schedule lives in ``games.core.ranking`` so the
ladder and ``arena simulate`` on the command line rate alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.core.ranking import ELO_PROVISIONAL_GAMES, ELO_START, elo_expected, elo_k

INITIAL_RATING = ELO_START
PROVISIONAL_GAMES = ELO_PROVISIONAL_GAMES

SCORES = {"win": 1.0, "draw": 0.5, "loss": 0.0}


@dataclass(frozen=True)
class Standing:
    """What the update needs to know about one side."""

    rating: float
    games: int


def expected_score(rating: float, opponent_rating: float) -> float:
    """The probability-like score ``rating`` is expected to take from ``opponent_rating``."""
    return elo_expected(rating, opponent_rating)


def k_factor(games: int) -> float:
    """K for a side that has played ``games`` rated games before this one."""
    return elo_k(games)


def is_provisional(games: int) -> bool:
    """Fewer than 20 rated games."""
    return games < PROVISIONAL_GAMES


def updated_ratings(a: Standing, b: Standing, score_a: float) -> tuple[float, float]:
    """New ratings of ``a`` and ``b`` after a game where ``a`` scored ``score_a`` (1, ½ or 0).

    Each side uses its own K, so the sum is not conserved when their games differ.
    """
    if score_a not in (0.0, 0.5, 1.0):
        raise ValueError(f"score must be 0, 0.5 or 1, got {score_a}")
    expected_a = expected_score(a.rating, b.rating)
    new_a = a.rating + k_factor(a.games) * (score_a - expected_a)
    new_b = b.rating + k_factor(b.games) * ((1.0 - score_a) - (1.0 - expected_a))
    return new_a, new_b

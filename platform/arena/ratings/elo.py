"""Elo arithmetic (DESIGN.md §7), pure: no Django.

Start 1200; K = 40 while provisional (the first 20 rated games), 20 after; a draw scores ½; a
forfeit is a loss (the referee already records it as one).
"""

from __future__ import annotations

from dataclasses import dataclass

INITIAL_RATING = 1200.0
PROVISIONAL_GAMES = 20
K_PROVISIONAL = 40.0
K_ESTABLISHED = 20.0

SCORES = {"win": 1.0, "draw": 0.5, "loss": 0.0}


@dataclass(frozen=True)
class Standing:
    """What the update needs to know about one side."""

    rating: float
    games: int


def expected_score(rating: float, opponent_rating: float) -> float:
    """The probability-like score ``rating`` is expected to take from ``opponent_rating``."""
    return 1.0 / (1.0 + 10.0 ** ((opponent_rating - rating) / 400.0))


def k_factor(games: int) -> float:
    """K for a side that has played ``games`` rated games before this one."""
    return K_PROVISIONAL if games < PROVISIONAL_GAMES else K_ESTABLISHED


def is_provisional(games: int) -> bool:
    """Fewer than 20 rated games."""
    return games < PROVISIONAL_GAMES


def updated_ratings(a: Standing, b: Standing, score_a: float) -> tuple[float, float]:
    """New ratings of ``a`` and ``b`` after a game where ``a`` scored ``score_a`` (1, ½ or 0).

    Each side uses its own K, so the sum is not conserved while one of them is provisional.
    """
    if score_a not in (0.0, 0.5, 1.0):
        raise ValueError(f"score must be 0, 0.5 or 1, got {score_a}")
    expected_a = expected_score(a.rating, b.rating)
    new_a = a.rating + k_factor(a.games) * (score_a - expected_a)
    new_b = b.rating + k_factor(b.games) * ((1.0 - score_a) - (1.0 - expected_a))
    return new_a, new_b

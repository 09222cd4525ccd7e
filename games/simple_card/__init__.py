"""Simple-card: the reference game (docs/games.md). Copy this package to start a new game."""

from games.simple_card.config import SimpleCardConfig
from games.simple_card.game import SimpleCardGame

__all__ = ["SimpleCardConfig", "SimpleCardGame"]

"""Brinkmanship: brinkmanship over six crises with a hidden war threshold."""

from games.brinkmanship.config import BrinkmanshipConfig
from games.brinkmanship.game import BrinkmanshipGame

__all__ = ["BrinkmanshipConfig", "BrinkmanshipGame"]

"""Liar's dice: two players, wild 1s, a round is a full game down to the last die."""

from games.liars_dice.config import LiarsDiceConfig
from games.liars_dice.game import LiarsDiceGame

__all__ = ["LiarsDiceConfig", "LiarsDiceGame"]

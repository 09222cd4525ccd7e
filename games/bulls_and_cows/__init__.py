"""Bulls and Cows: a bulls-and-cows race to crack the same 4-digit code."""

from games.bulls_and_cows.config import BullsAndCowsConfig
from games.bulls_and_cows.game import BullsAndCowsGame

__all__ = ["BullsAndCowsConfig", "BullsAndCowsGame"]

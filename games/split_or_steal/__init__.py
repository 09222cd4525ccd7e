"""Split or Steal (Golden Balls' final), played five times with free talk (``rules.md``)."""

from games.split_or_steal.config import SplitOrStealConfig
from games.split_or_steal.game import SplitOrStealGame

__all__ = ["SplitOrStealConfig", "SplitOrStealGame"]

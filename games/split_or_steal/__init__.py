"""Split or Steal (Golden Balls' final), played five times with free talk (``rules.md``)."""

from games.core import ArenaConfig
from games.split_or_steal.config import SplitOrStealConfig
from games.split_or_steal.game import SplitOrStealGame


def create_game(arena_config: ArenaConfig) -> SplitOrStealGame:
    """Build the game for the seats, seed and config of ``arena_config``."""
    return SplitOrStealGame(
        players=[p.id for p in arena_config.players],
        config=SplitOrStealConfig(**arena_config.config),
        seed=arena_config.seed,
    )


__all__ = ["SplitOrStealConfig", "SplitOrStealGame", "create_game"]

"""Liar's dice: two players, wild 1s, a round is a full game down to the last die."""

from games.core import ArenaConfig
from games.liars_dice.config import LiarsDiceConfig
from games.liars_dice.game import LiarsDiceGame


def create_game(arena_config: ArenaConfig) -> LiarsDiceGame:
    """Build the game for the seats, seed and config of ``arena_config``."""
    players = [p.id for p in arena_config.players]
    return LiarsDiceGame(
        players=players, config=LiarsDiceConfig(**arena_config.config), seed=arena_config.seed
    )


__all__ = ["LiarsDiceConfig", "LiarsDiceGame", "create_game"]

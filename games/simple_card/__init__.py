"""Simple-card: the reference game (docs/games.md). Copy this package to start a new game."""

from games.core import ArenaConfig
from games.simple_card.config import SimpleCardConfig
from games.simple_card.game import SimpleCardGame


def create_game(arena_config: ArenaConfig) -> SimpleCardGame:
    """Build the game for the seats, seed and config of ``arena_config``."""
    players = [p.id for p in arena_config.players]
    return SimpleCardGame(
        players=players, config=SimpleCardConfig(**arena_config.config), seed=arena_config.seed
    )


__all__ = ["SimpleCardConfig", "SimpleCardGame", "create_game"]

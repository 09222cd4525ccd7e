"""Nuclear war: brinkmanship over six crises with a hidden war threshold."""

from games.core import ArenaConfig
from games.nuclear_war.config import NuclearWarConfig
from games.nuclear_war.game import NuclearWarGame


def create_game(arena_config: ArenaConfig) -> NuclearWarGame:
    """Build the game for the seats, seed and config of ``arena_config``."""
    players = [p.id for p in arena_config.players]
    return NuclearWarGame(
        players=players, config=NuclearWarConfig(**arena_config.config), seed=arena_config.seed
    )


__all__ = ["NuclearWarConfig", "NuclearWarGame", "create_game"]

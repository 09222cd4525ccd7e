"""Heads-up no-limit Texas Hold'em: 100 hands, 20,000 chips, blinds 50/100."""

from games.core import ArenaConfig
from games.poker.action_parser import PokerActionParser
from games.poker.config import PokerConfig
from games.poker.game import PokerGame
from games.poker.state_adapter import PokerStateAdapter


def create_game(arena_config: ArenaConfig) -> PokerGame:
    """Build the game for the seats, seed and config of ``arena_config``."""
    players = [p.id for p in arena_config.players]
    return PokerGame(
        players=players, config=PokerConfig(**arena_config.config), seed=arena_config.seed
    )


__all__ = [
    "PokerActionParser",
    "PokerConfig",
    "PokerGame",
    "PokerStateAdapter",
    "create_game",
]

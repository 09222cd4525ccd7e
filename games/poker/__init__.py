"""Heads-up no-limit Texas Hold'em: 100 hands, 20,000 chips, blinds 50/100."""

from games.poker.action_parser import PokerActionParser
from games.poker.config import PokerConfig
from games.poker.game import PokerGame
from games.poker.state_adapter import PokerStateAdapter

__all__ = [
    "PokerActionParser",
    "PokerConfig",
    "PokerGame",
    "PokerStateAdapter",
]

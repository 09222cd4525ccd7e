"""Heads-up no-limit Texas Hold'em: 100 hands, 20,000 chips, blinds 50/100."""

from games.core.manifest import GamePackage, LadderFigure, Playthrough
from games.poker.action_parser import PokerActionParser
from games.poker.config import PokerConfig
from games.poker.game import PokerGame
from games.poker.state_adapter import PokerStateAdapter

#: What the registry finds in this folder (``games.core.manifest``). Playthroughs are short
#: matches where a full one would make a file of megabytes.
ARENA_GAME = GamePackage(
    game_class=PokerGame,
    state_adapter_class=PokerStateAdapter,
    action_parser_class=PokerActionParser,
    playthroughs=(
        Playthrough(("hand-strength", "raise-happy"), 1, {"hands": 6}),
        Playthrough(("always-call", "hand-strength"), 2, {"hands": 6}),
    ),
    ladder_figures=(
        LadderFigure(
            "bb_per_100",
            "BB/100",
            "big blinds won per 100 hands, the mean over its rated matches",
        ),
    ),
    order=80,
)

__all__ = [
    "ARENA_GAME",
    "PokerActionParser",
    "PokerConfig",
    "PokerGame",
    "PokerStateAdapter",
]

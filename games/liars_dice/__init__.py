"""Liar's dice: two players, wild 1s, a round is a full game down to the last die."""

from games.core.manifest import GamePackage, Playthrough
from games.liars_dice.action_parser import LiarsDiceActionParser
from games.liars_dice.config import LiarsDiceConfig
from games.liars_dice.game import LiarsDiceGame
from games.liars_dice.state_adapter import LiarsDiceStateAdapter

#: What the registry finds in this folder (``games.core.manifest``). Playthroughs are short
#: matches where a full one would make a file of megabytes.
ARENA_GAME = GamePackage(
    game_class=LiarsDiceGame,
    state_adapter_class=LiarsDiceStateAdapter,
    action_parser_class=LiarsDiceActionParser,
    playthroughs=(
        Playthrough(("reader", "probability"), 1, {"rounds": 2}),
        Playthrough(("random", "reader"), 2, {"rounds": 2}),
    ),
    order=30,
)

__all__ = [
    "ARENA_GAME",
    "LiarsDiceActionParser",
    "LiarsDiceConfig",
    "LiarsDiceGame",
    "LiarsDiceStateAdapter",
]

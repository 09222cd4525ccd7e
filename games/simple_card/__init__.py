"""Simple-card: the reference game (docs/games.md). Copy this package to start a new game."""

from games.core.manifest import GamePackage, Playthrough
from games.simple_card.action_parser import SimpleCardActionParser
from games.simple_card.config import SimpleCardConfig
from games.simple_card.game import SimpleCardGame
from games.simple_card.state_adapter import SimpleCardStateAdapter

#: What the registry finds in this folder (``games.core.manifest``). Playthroughs are short
#: matches where a full one would make a file of megabytes.
ARENA_GAME = GamePackage(
    game_class=SimpleCardGame,
    state_adapter_class=SimpleCardStateAdapter,
    action_parser_class=SimpleCardActionParser,
    playthroughs=(
        Playthrough(("random", "highest"), 1),
        Playthrough(("counter", "lowest"), 2),
    ),
    order=10,
)

__all__ = [
    "ARENA_GAME",
    "SimpleCardActionParser",
    "SimpleCardConfig",
    "SimpleCardGame",
    "SimpleCardStateAdapter",
]

"""Split or Steal (Golden Balls' final), played five times with free talk (``rules.md``)."""

from games.core.manifest import GamePackage, Playthrough
from games.split_or_steal.action_parser import SplitOrStealActionParser
from games.split_or_steal.config import SplitOrStealConfig
from games.split_or_steal.game import SplitOrStealGame
from games.split_or_steal.state_adapter import SplitOrStealStateAdapter

#: What the registry finds in this folder (``games.core.manifest``). Playthroughs are short
#: matches where a full one would make a file of megabytes.
ARENA_GAME = GamePackage(
    game_class=SplitOrStealGame,
    state_adapter_class=SplitOrStealStateAdapter,
    action_parser_class=SplitOrStealActionParser,
    playthroughs=(
        Playthrough(("message-reader", "tit-for-tat"), 1),
        Playthrough(("grudger", "always-steal"), 2),
    ),
    order=20,
)

__all__ = [
    "ARENA_GAME",
    "SplitOrStealActionParser",
    "SplitOrStealConfig",
    "SplitOrStealGame",
    "SplitOrStealStateAdapter",
]

"""Chess: two games with colours swapped, strict automatic termination."""

from games.chess.action_parser import ChessActionParser
from games.chess.config import ChessConfig
from games.chess.game import ChessGame
from games.chess.state_adapter import ChessStateAdapter
from games.core.manifest import GamePackage, Playthrough

#: What the registry finds in this folder (``games.core.manifest``). Playthroughs are short
#: matches where a full one would make a file of megabytes.
ARENA_GAME = GamePackage(
    game_class=ChessGame,
    state_adapter_class=ChessStateAdapter,
    action_parser_class=ChessActionParser,
    playthroughs=(
        Playthrough(("greedy", "random"), 1, {"games": 1}),
        Playthrough(("random", "greedy"), 2, {"games": 1}),
    ),
    order=70,
)

__all__ = [
    "ARENA_GAME",
    "ChessActionParser",
    "ChessConfig",
    "ChessGame",
    "ChessStateAdapter",
]

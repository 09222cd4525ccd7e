"""Chess: two games with colours swapped, strict automatic termination."""

from games.chess.action_parser import ChessActionParser
from games.chess.config import ChessConfig
from games.chess.game import ChessGame
from games.chess.state_adapter import ChessStateAdapter

__all__ = [
    "ChessActionParser",
    "ChessConfig",
    "ChessGame",
    "ChessStateAdapter",
]

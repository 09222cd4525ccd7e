"""Chess: two games with colours swapped, strict automatic termination."""

from games.chess.action_parser import ChessActionParser
from games.chess.config import ChessConfig
from games.chess.game import ChessGame
from games.chess.state_adapter import ChessStateAdapter
from games.core import ArenaConfig


def create_game(arena_config: ArenaConfig) -> ChessGame:
    """Build the game for the seats, seed and config of ``arena_config``."""
    players = [p.id for p in arena_config.players]
    return ChessGame(
        players=players, config=ChessConfig(**arena_config.config), seed=arena_config.seed
    )


__all__ = [
    "ChessActionParser",
    "ChessConfig",
    "ChessGame",
    "ChessStateAdapter",
    "create_game",
]

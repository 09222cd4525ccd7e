"""Chess's config: games per match, the safety cap and the starting position."""

from __future__ import annotations

from typing import Any, ClassVar

import chess
from pydantic import Field, field_validator

from games.core import GameConfig

#: The standard starting position.
STANDARD_FEN = chess.STARTING_FEN


class ChessConfig(GameConfig):
    """Every field is checked; unknown keys are refused."""

    #: Validation plays two games (each colour once) of six plies.
    validation_overrides: ClassVar[dict[str, Any]] = {"games": 2, "max_plies": 6}
    validation_max_turns: ClassVar[int] = 12

    #: Games (rounds) per match; colours swap every game, seat 0 has white in game 1.
    games: int = Field(default=2, ge=1, le=20)
    #: Half-moves after which a game still running is adjudicated a draw (``rules.md``: 1000).
    max_plies: int = Field(default=1000, ge=1, le=5000)
    #: The position every game starts from, as FEN (training from a set position, rule tests).
    start_fen: str = STANDARD_FEN

    @field_validator("start_fen")
    @classmethod
    def _playable_position(cls, fen: str) -> str:
        try:
            board = chess.Board(fen)
        except ValueError as exc:
            raise ValueError(f"start_fen is not a valid FEN: {exc}") from exc
        if not board.is_valid():
            raise ValueError(
                f"start_fen {fen!r} is not a legal chess position ({board.status()!r})"
            )
        if board.is_game_over():
            raise ValueError(f"start_fen {fen!r} is already over: the side to move cannot play")
        return board.fen()

"""Chess's view for agents: the board as FEN, your colour, the legal moves in UCI."""

from __future__ import annotations

from typing import Any

import chess

from games.core import Action, StateAdapter, answer_schema


class ChessStateAdapter(StateAdapter):
    """Adds ``fen``, ``color``, ``legal_moves``, ``moves`` and ``in_check`` (``rules.md``)."""

    def game_fields(
        self, public_state: dict[str, Any], private_state: dict[str, Any], player_id: str
    ) -> dict[str, Any]:
        """The board is public; ``legal_moves`` is computed from the FEN, sorted UCI."""
        board = chess.Board(public_state["fen"])
        legal = (
            [] if public_state["phase"] == "over" else sorted(m.uci() for m in board.legal_moves)
        )
        return {
            "fen": public_state["fen"],
            "color": private_state["color"],
            "legal_moves": legal,
            "moves": list(public_state["moves"]),
            "in_check": public_state["in_check"],
        }

    def view_prompt(
        self, view: dict[str, Any], valid_actions: list[Action], turn_history: list[dict[str, Any]]
    ) -> str:
        """FEN, side to move, the board and the legal moves, as ``rules.md`` describes them."""
        board = chess.Board(view["fen"])
        side = "White" if board.turn == chess.WHITE else "Black"
        legal = " ".join(a["move"] for a in valid_actions)
        lines = [
            f"You are playing {view['color']} (game {view['round']}).",
            f"Current position (FEN): {view['fen']}",
            f"Side to move: {side}" + (" (in check)" if view["in_check"] else ""),
            "",
            str(board),
            "",
            f"Moves so far (UCI): {' '.join(view['moves']) or '(none)'}",
            f"Legal moves (UCI): {legal}",
            "",
            'Answer with one JSON object: {"type": "move", "move": "<uci>"}, e.g. '
            '{"type": "move", "move": "e2e4"}.',
        ]
        return "\n".join(lines)

    def format_system_prompt(self, role: str, **kwargs: Any) -> str:
        """A chess player's persona."""
        return (
            "You are a strong chess player. You are given the position and the legal moves; "
            "reply with a single JSON object naming one legal move in UCI."
        )

    def get_output_schema(self) -> dict[str, Any]:
        """``{"type": "move", "move": "<uci>"}``."""
        return answer_schema(
            "move",
            required=["move"],
            move={"type": "string", "pattern": "^[a-h][1-8][a-h][1-8][qrbn]?$"},
        )

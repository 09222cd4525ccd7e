"""Chess's parser: any ``move`` goes through to the game, which judges it against the board.

The game (not the parser) checks the move so that every refusal carries the reason, the FEN and
an ASCII board, as ``rules.md`` describes; a parser only sees the list of legal moves.
"""

from __future__ import annotations

from typing import Any

from games.core import Action, ActionParser


class ChessActionParser(ActionParser):
    """``{"type": "move", "move": "e2e4"}``; ``uci`` is accepted for ``move``."""

    field_aliases = {"uci": "move"}

    def validate(self, action: Action, template: Action, valid_actions: list[Action]) -> Action:
        """Keep only ``action_type`` and ``move``; the game checks the move itself.

        A listed move written with spaces or capitals is returned in its canonical spelling.
        """
        move: Any = action.get("move")
        if isinstance(move, str):
            canonical = move.strip().lower()
            if any(a.get("move") == canonical for a in valid_actions):
                move = canonical
        return {"action_type": "move", "move": move}

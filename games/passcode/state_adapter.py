"""Passcode as an agent sees it: the common fields and the original platform's
(``round_number`` is the cycle within the word, ``is_your_turn``, ``your_qa_history``)."""

from __future__ import annotations

from typing import Any

from games.core import StateAdapter


class PasscodeStateAdapter(StateAdapter):
    """Adds the cycle, this player's questions and answers, and who is locked out."""

    def game_fields(
        self, public_state: dict[str, Any], private_state: dict[str, Any], player_id: str
    ) -> dict[str, Any]:
        """Never the opponent's questions, answers or guesses: only whether it guessed and is
        locked out."""
        locked: dict[str, bool] = public_state.get("locked_out", {})
        guessed: dict[str, bool] = public_state.get("guessed", {})
        opponent = next((p for p in locked if p != player_id), player_id)
        return {
            "round_number": public_state.get("cycle"),
            "cycle": public_state.get("cycle"),
            "cycle_limit": public_state.get("cycle_limit"),
            "is_your_turn": True,
            "your_qa_history": [dict(q) for q in private_state.get("qa_history", [])],
            "your_locked_out": bool(locked.get(player_id)),
            "opponent_locked_out": bool(locked.get(opponent)),
            "opponent_guessed": bool(guessed.get(opponent)),
        }

    def get_output_schema(self) -> dict[str, Any]:
        """A question or a guess (with its text), or a pass."""
        return {
            "type": "object",
            "properties": {
                "type": {"enum": ["question", "guess", "pass"]},
                "text": {"type": "string", "maxLength": 200},
            },
            "required": ["type"],
        }

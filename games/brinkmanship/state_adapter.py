"""Brinkmanship as an agent sees it: the common fields plus ``escalation_level`` and ``step``."""

from __future__ import annotations

from typing import Any

from games.core import StateAdapter, answer_schema


class BrinkmanshipStateAdapter(StateAdapter):
    """Adds the escalation level, the step and both sides' earlier choices in this crisis."""

    def game_fields(
        self, public_state: dict[str, Any], private_state: dict[str, Any], player_id: str
    ) -> dict[str, Any]:
        """The threshold K is never shown; choices appear once both have committed."""
        choices: dict[str, list[str]] = public_state["choices"]
        opponent = next((p for p in choices if p != player_id), player_id)
        return {
            "escalation_level": public_state["escalation_level"],
            "step": public_state["step"],
            "max_threshold": public_state["max_threshold"],
            "your_choices": list(choices.get(player_id, [])),
            "opponent_choices": list(choices.get(opponent, [])),
        }

    def get_output_schema(self) -> dict[str, Any]:
        """A message while negotiating, a commitment while committing."""
        return answer_schema(
            ["message", "commit"],
            text={"type": "string", "maxLength": 280},
            choice={"enum": ["stand", "yield"]},
        )

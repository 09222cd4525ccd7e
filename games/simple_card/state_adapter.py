"""Simple-card's view for agents: the common fields (docs/games.md) plus ``hand``."""

from __future__ import annotations

from typing import Any

from games.core import StateAdapter, answer_schema


class SimpleCardStateAdapter(StateAdapter):
    """Adds ``hand`` to the common fields."""

    def game_fields(
        self, public_state: dict[str, Any], private_state: dict[str, Any], player_id: str
    ) -> dict[str, Any]:
        """Your hand; the opponent's hand and pending card are never shown."""
        return {"hand": private_state["hand"]}

    def get_output_schema(self) -> dict[str, Any]:
        """``{"type": "play_card", "card": int}``."""
        return answer_schema("play_card", required=["card"], card={"type": "integer"})

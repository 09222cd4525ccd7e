"""Sealed-bid recruitment as an agent sees it: the common fields, ``your_fit`` and the recruit."""

from __future__ import annotations

from typing import Any

from games.core import StateAdapter, answer_schema


class SealedBidRecruitmentStateAdapter(StateAdapter):
    """Adds your fit, the recruit, both schools' budgets and the schedule of values."""

    def game_fields(
        self, public_state: dict[str, Any], private_state: dict[str, Any], player_id: str
    ) -> dict[str, Any]:
        """The opponent's fit and pending offer are never shown (both come in ``round_result``)."""
        budgets: dict[str, int] = public_state["budgets"]
        universities: dict[str, str] = public_state["universities"]
        opponent = next((p for p in budgets if p != player_id), player_id)
        values: list[int] = public_state["recruit_values"]
        return {
            "your_fit": private_state["fit"],
            "recruit": public_state["recruit"],
            "your_budget": budgets.get(player_id, 0),
            "opponent_budget": budgets.get(opponent, 0),
            "recruit_values": list(values),
            "remaining_values": list(values[public_state["round"] - 1 :]),
            "your_university": universities.get(player_id, ""),
            "opponent_university": universities.get(opponent, ""),
            "you_speak_second": public_state["second_speaker"] == player_id,
        }

    def get_output_schema(self) -> dict[str, Any]:
        """A pitch message, or an offer."""
        return answer_schema(
            ["message", "offer"],
            text={"type": "string", "maxLength": 500},
            amount={"type": "integer", "minimum": 0},
        )

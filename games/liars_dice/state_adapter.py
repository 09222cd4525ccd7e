"""Liar's dice as an agent sees it: the common fields plus those ``rules.md`` lists."""

from __future__ import annotations

from typing import Any

from games.core import StateAdapter, answer_schema, seat_name
from games.liars_dice.game import reveal_for


class LiarsDiceStateAdapter(StateAdapter):
    """Adds ``your_dice``, dice counts, the bidding and this round's reveals."""

    def game_fields(
        self, public_state: dict[str, Any], private_state: dict[str, Any], player_id: str
    ) -> dict[str, Any]:
        """Your dice only; the opponent's dice appear only in ``reveals`` after a challenge."""
        counts: dict[str, int] = public_state["dice_counts"]
        opponent = next((p for p in counts if p != player_id), player_id)
        standing = public_state["current_bid"]
        return {
            "your_dice": list(private_state["dice"]),
            "your_dice_count": counts.get(player_id, 0),
            "opponent_dice_count": counts.get(opponent, 0),
            "total_dice": public_state["total_dice"],
            "current_bid": (
                {"quantity": standing["quantity"], "face": standing["face"]} if standing else None
            ),
            "bid_history": [
                {
                    "player": seat_name(b["player"], player_id),
                    "quantity": b["quantity"],
                    "face": b["face"],
                }
                for b in public_state["bid_history"]
            ],
            "reveals": [reveal_for(r, player_id, opponent) for r in public_state["reveals"]],
        }

    def get_output_schema(self) -> dict[str, Any]:
        """A bid with quantity and face, or a challenge."""
        return answer_schema(
            ["bid", "challenge"],
            quantity={"type": "integer", "minimum": 1},
            face={"type": "integer", "minimum": 2, "maximum": 6},
        )

"""Split-or-steal's view: the common fields (docs/games.md) plus the negotiation's shape."""

from __future__ import annotations

from typing import Any

from games.core import StateAdapter, answer_schema, seat_name


class SplitOrStealStateAdapter(StateAdapter):
    """Adds ``first_speaker``, ``messages_left`` and, once chosen, ``your_pending_choice``."""

    def game_fields(
        self, public_state: dict[str, Any], private_state: dict[str, Any], player_id: str
    ) -> dict[str, Any]:
        """Who spoke first this round and how many messages remain."""
        first = public_state.get("first_speaker")
        fields: dict[str, Any] = {
            "first_speaker": seat_name(first, player_id) if first else None,
        }
        if "your_pending_choice" in private_state:
            fields["your_pending_choice"] = private_state["your_pending_choice"]
        return fields

    def format_system_prompt(self, role: str, **kwargs: Any) -> str:
        """The persona for a language-model seat."""
        return (
            "You are playing Split or Steal. Each round you may talk, then you and your "
            "opponent choose at once: split/split shares the pot, steal/split gives it all to the "
            "stealer, steal/steal gives nothing. Maximise your total over the match."
        )

    def get_output_schema(self) -> dict[str, Any]:
        """A message or a commitment."""
        return {
            "oneOf": [
                answer_schema(
                    "message", required=["text"], text={"type": "string", "maxLength": 280}
                ),
                answer_schema("commit", required=["choice"], choice={"enum": ["split", "steal"]}),
            ]
        }

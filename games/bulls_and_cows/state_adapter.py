"""Bulls and Cows as an agent sees it: the common fields plus the fields ``rules.md`` lists."""

from __future__ import annotations

from typing import Any

from games.core import StateAdapter, answer_schema


class BullsAndCowsStateAdapter(StateAdapter):
    """Adds your own probes and answers, the lock-outs, the cycle and its limit."""

    def game_fields(
        self, public_state: dict[str, Any], private_state: dict[str, Any], player_id: str
    ) -> dict[str, Any]:
        """Only your own questions; the opponent's probes, answers and pending guess stay hidden."""
        locked: dict[str, bool] = public_state["locked_out"]
        guessed: dict[str, bool] = public_state["guessed"]
        opponent = next((p for p in locked if p != player_id), player_id)
        return {
            "your_qa_history": private_state["qa_history"],
            "opponent_guessed": guessed.get(opponent, False),
            "opponent_locked_out": locked.get(opponent, False),
            "your_locked_out": locked.get(player_id, False),
            "cycle": public_state["cycle"],
            "cycle_limit": public_state["cycle_limit"],
        }

    def get_output_schema(self) -> dict[str, Any]:
        """A question or a guess with a 4-digit code, or a pass."""
        return answer_schema(
            ["question", "guess", "pass"], code={"type": "string", "pattern": "^[0-9]{4}$"}
        )

"""Poker's view for agents: your cards, the board, stacks, what you owe and the raise range."""

from __future__ import annotations

from typing import Any

from games.core import Action, StateAdapter, answer_schema, seat_name


class PokerStateAdapter(StateAdapter):
    """Adds the fields of ``rules.md``: ``to_call``, ``min_raise_to``, ``max_raise_to``,
    ``your_cards``, ``board``, ``your_stack``, ``opponent_stack``, ``button``, ``street``,
    ``actions``."""

    def game_fields(
        self, public_state: dict[str, Any], private_state: dict[str, Any], player_id: str
    ) -> dict[str, Any]:
        """Only the public table and this seat's own cards; the opponent's cards stay hidden."""
        opponent = next((p for p in public_state["stacks"] if p != player_id), player_id)
        limits = public_state["limits"][player_id]
        return {
            "to_call": limits["to_call"],
            "min_raise_to": limits["min_raise_to"],
            "max_raise_to": limits["max_raise_to"],
            "your_cards": list(private_state["your_cards"]),
            "board": list(public_state["board"]),
            "your_stack": public_state["stacks"][player_id],
            "opponent_stack": public_state["stacks"][opponent],
            "your_bet": public_state["street_bets"][player_id],
            "opponent_bet": public_state["street_bets"][opponent],
            "button": seat_name(public_state["button"], player_id),
            "street": public_state["street"],
            "actions": [
                {**a, "player": seat_name(a["player"], player_id)} for a in public_state["actions"]
            ],
            "small_blind": public_state["small_blind"],
            "big_blind": public_state["big_blind"],
        }

    def view_prompt(
        self, view: dict[str, Any], valid_actions: list[Action], turn_history: list[dict[str, Any]]
    ) -> str:
        """The table in words, then the legal actions."""
        acted = ", ".join(
            f"{a['player']} {a['type']}" + (f" {a['amount']}" if "amount" in a else "")
            for a in view["actions"]
        )
        raise_line = (
            f"You may raise to any total from {view['min_raise_to']} to {view['max_raise_to']} "
            f"on this street ({view['max_raise_to']} is all-in)."
            if view["min_raise_to"] is not None
            else "Raising is closed."
        )
        seat = "on the button (small blind)" if view["button"] == "you" else "the big blind"
        board = " ".join(view["board"]) or "(none)"
        lines = [
            f"Heads-up no-limit hold'em, hand {view['round']}, street {view['street']}.",
            f"You are {seat}.",
            f"Your cards: {' '.join(view['your_cards'])}. Board: {board}.",
            f"Pot {view['pot']}. Your stack {view['your_stack']}, "
            f"opponent's {view['opponent_stack']}.",
            f"This street you have put in {view['your_bet']}, the opponent {view['opponent_bet']}; "
            f"to call: {view['to_call']}.",
            raise_line,
            f"Actions this hand: {acted}.",
            f"Match so far: you {view['your_score']:+g} chips.",
            "",
            "Legal actions:",
            self.format_valid_actions_for_prompt(valid_actions),
            "",
            'Answer with one JSON object, e.g. {"type": "call"} or '
            '{"type": "raise", "amount": 600}.',
        ]
        return "\n".join(lines)

    def get_output_schema(self) -> dict[str, Any]:
        """``{"type": fold|check|call|raise|all_in, "amount": int}`` (amount for raise only)."""
        return answer_schema(
            ["fold", "check", "call", "raise", "bet", "all_in"],
            amount={"type": "integer", "minimum": 0},
        )

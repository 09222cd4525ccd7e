"""Poker's parser: type aliases (``bet``, ``all-in``), and bet amounts passed to the game.

The game judges every amount (minimum, stack, whole chips) so that the reason always names the
legal range; the parser maps the names agents use onto the game's action types, and turns the
lenient forms (``call`` with nothing owed, ``all_in`` when raising is closed) into the action the
game applies, so that the match log records what was played.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core import Action, ActionParser

#: The game's action types.
POKER_ACTIONS = frozenset({"fold", "check", "call", "raise", "all_in"})

#: Names agents use for the game's action types.
TYPE_ALIASES = {
    "bet": "raise",
    "raise_to": "raise",
    "all-in": "all_in",
    "allin": "all_in",
    "all in": "all_in",
    "shove": "all_in",
}


class PokerActionParser(ActionParser):
    """``fold``, ``check``, ``call``, ``{"type": "raise", "amount": X}`` (to X), ``all_in``."""

    field_aliases = {"raise_to": "amount", "to": "amount"}

    def normalize(self, raw: Mapping[str, Any]) -> Action:
        """The base normalisation, then ``bet`` → ``raise`` and the spellings of all-in."""
        action = super().normalize(raw)
        kind = action.get("action_type")
        if isinstance(kind, str):
            action["action_type"] = TYPE_ALIASES.get(kind, kind)
        return action

    def find_closest_action(self, parsed: Action, valid_actions: list[Action]) -> Action | None:
        """The listed action of that type; a poker action not legal now still goes to the game,
        whose refusal says why (``check`` while owing chips names the amount to call)."""
        found = super().find_closest_action(parsed, valid_actions)
        if found is None and parsed.get("action_type") in POKER_ACTIONS:
            return {"action_type": parsed["action_type"]}
        return found

    def validate(self, action: Action, template: Action, valid_actions: list[Action]) -> Action:
        """Listed fixed actions come back as listed; a raise keeps its amount for the game.

        What a player would expect to work does: ``call`` with nothing owed comes back as
        ``check``, ``all_in`` while raising is closed as the listed ``call`` (or ``check``), so the
        log records the action applied. A ``call`` naming an amount keeps it when it is not what is
        owed, for the game to refuse with the amount owed (an under-call is refused, ``rules.md``).
        """
        listed = {a["action_type"]: a for a in valid_actions}
        kind = action["action_type"]
        if kind == "raise":
            return {"action_type": "raise", "amount": action.get("amount")}
        if kind == "all_in" and "all_in" not in listed:
            kind = "call" if "call" in listed else "check"
        elif kind == "call":
            owed = listed["call"].get("amount", 0) if "call" in listed else 0
            amount = action.get("amount")
            if amount is not None and not _same_chips(amount, owed):
                return {"action_type": "call", "amount": amount}  # the game says what is owed
            if "call" not in listed and "check" in listed:
                kind = "check"
        return dict(listed.get(kind, template))


def _same_chips(amount: Any, owed: int) -> bool:
    return not isinstance(amount, bool) and isinstance(amount, int | float) and amount == owed

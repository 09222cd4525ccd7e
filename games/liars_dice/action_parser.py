"""Liar's dice parser: ``bid`` takes two whole numbers; the game checks that it raises."""

from __future__ import annotations

from games.core import Action, ActionParseError, ActionParser


class LiarsDiceActionParser(ActionParser):
    """``{"type": "bid", "quantity": 3, "face": 4}`` or ``{"type": "challenge"}``."""

    def validate(self, action: Action, template: Action, valid_actions: list[Action]) -> Action:
        """Check the bid's numbers are integers; whether it raises is the game's rule to judge."""
        if action["action_type"] == "challenge":
            return {"action_type": "challenge"}
        quantity, face = action.get("quantity"), action.get("face")
        for key, value in (("quantity", quantity), ("face", face)):
            if value is None:
                raise ActionParseError(
                    f'a bid needs "{key}": write {{"type": "bid", "quantity": 3, "face": 4}}'
                )
            if not isinstance(value, int) or isinstance(value, bool):
                raise ActionParseError(f'"{key}" must be a whole number, got {value!r}')
        return {"action_type": "bid", "quantity": quantity, "face": face}

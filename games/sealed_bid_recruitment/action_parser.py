"""Sealed-bid recruitment's parser: a pitch message, or an offer within the budget."""

from __future__ import annotations

from games.core import Action, ActionParseError
from games.core.messages import TalkingActionParser


class SealedBidRecruitmentActionParser(TalkingActionParser):
    """``{"type": "message", "text": ...}`` or ``{"type": "offer", "amount": 120}``.

    ``message`` is accepted for ``text``.
    """

    def validate_move(
        self, action: Action, template: Action, valid_actions: list[Action]
    ) -> Action:
        """Check the amount against the remaining budget."""
        amount = action.get("amount")
        if amount is None:
            raise ActionParseError('an offer needs "amount": write {"type": "offer", "amount": 90}')
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise ActionParseError(f'"amount" must be a whole number, got {amount!r}')
        low, high = int(template["min"]), int(template["max"])
        if not low <= amount <= high:
            raise ActionParseError(
                f"offer {amount} is outside {low}..{high}: your remaining budget is {high}"
            )
        return {"action_type": "offer", "amount": amount}

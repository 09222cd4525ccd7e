"""Brinkmanship's parser: a free-text message, or stand/yield."""

from __future__ import annotations

from games.core import Action, ActionParseError
from games.core.messages import TalkingActionParser


class BrinkmanshipActionParser(TalkingActionParser):
    """``{"type": "message", "text": ...}`` or ``{"type": "commit", "choice": "stand"|"yield"}``.

    ``message`` is accepted for ``text``; ``choice`` is case-insensitive.
    """

    def validate_move(
        self, action: Action, template: Action, valid_actions: list[Action]
    ) -> Action:
        """Normalise the choice."""
        choice = action.get("choice")
        if isinstance(choice, str):
            choice = choice.strip().lower()
        if choice not in ("stand", "yield"):
            raise ActionParseError(f'"choice" must be "stand" or "yield", not {choice!r}')
        return {"action_type": "commit", "choice": choice}

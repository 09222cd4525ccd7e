"""Nuclear war's parser: a free-text message, or stand/yield."""

from __future__ import annotations

from typing import ClassVar

from games.core import Action, ActionParseError, ActionParser
from games.core.messages import checked_message_text


class NuclearWarActionParser(ActionParser):
    """``{"type": "message", "text": ...}`` or ``{"type": "commit", "choice": "stand"|"yield"}``.

    ``message`` is accepted for ``text``; ``choice`` is case-insensitive.
    """

    field_aliases: ClassVar[dict[str, str]] = {"message": "text"}

    def validate(self, action: Action, template: Action, valid_actions: list[Action]) -> Action:
        """Check the text's type and length; normalise the choice."""
        if template["action_type"] == "message":
            text = checked_message_text(action, int(template["max_length"]), ActionParseError)
            return {"action_type": "message", "text": text}
        choice = action.get("choice")
        if isinstance(choice, str):
            choice = choice.strip().lower()
        if choice not in ("stand", "yield"):
            raise ActionParseError(f'"choice" must be "stand" or "yield", not {choice!r}')
        return {"action_type": "commit", "choice": choice}

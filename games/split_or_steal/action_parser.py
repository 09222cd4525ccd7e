"""Split-or-steal's parser: a free-text message, or one of two choices."""

from __future__ import annotations

from typing import ClassVar

from games.core import Action, ActionParseError, ActionParser
from games.core.messages import checked_message_text


class SplitOrStealActionParser(ActionParser):
    """``{"type": "message", "text": ...}`` or ``{"type": "commit", "choice": "split"|"steal"}``.

    ``message``'s ``text`` may also be sent as ``message``; ``choice`` is case-insensitive.
    """

    field_aliases: ClassVar[dict[str, str]] = {"message": "text"}

    def validate(self, action: Action, template: Action, valid_actions: list[Action]) -> Action:
        """Check the text's type and length; normalise the choice."""
        if template["action_type"] == "message":
            text = checked_message_text(action, int(template["max_length"]), ActionParseError)
            return {"action_type": "message", "text": text}
        choice = action.get("choice")
        if isinstance(choice, str):
            action = {**action, "choice": choice.strip().lower()}
        if action.get("choice") not in ("split", "steal"):
            raise ActionParseError(f'"choice" must be "split" or "steal", not {choice!r}')
        return {"action_type": "commit", "choice": action["choice"]}

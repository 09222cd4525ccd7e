"""Split-or-steal's parser: a free-text message, or one of two choices."""

from __future__ import annotations

from games.core import Action, ActionParseError
from games.core.messages import TalkingActionParser


class SplitOrStealActionParser(TalkingActionParser):
    """``{"type": "message", "text": ...}`` or ``{"type": "commit", "choice": "split"|"steal"}``.

    ``message``'s ``text`` may also be sent as ``message``; ``choice`` is case-insensitive.
    """

    def validate_move(
        self, action: Action, template: Action, valid_actions: list[Action]
    ) -> Action:
        """Normalise the choice."""
        choice = action.get("choice")
        if isinstance(choice, str):
            action = {**action, "choice": choice.strip().lower()}
        if action.get("choice") not in ("split", "steal"):
            raise ActionParseError(f'"choice" must be "split" or "steal", not {choice!r}')
        return {"action_type": "commit", "choice": action["choice"]}

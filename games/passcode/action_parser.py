"""Passcode's parser: ``question`` and ``guess`` with a ``text`` (``question``, ``guess`` and
``word`` are accepted for it), or ``pass``; a long text is cut, never refused."""

from __future__ import annotations

from typing import ClassVar

from games.core import Action, ActionParseError, ActionParser
from games.core.judge import cap_text


class PasscodeActionParser(ActionParser):
    """``{"type" | "action_type": "question" | "guess", "text": ...}`` or ``{"type": "pass"}``."""

    field_aliases: ClassVar[dict[str, str]] = {"question": "text", "guess": "text", "word": "text"}

    def validate(self, action: Action, template: Action, valid_actions: list[Action]) -> Action:
        """The text, cut to the template's cap."""
        if template["action_type"] == "pass":
            return {"action_type": "pass"}
        text = action.get("text", "")
        if text is None:
            text = ""
        if not isinstance(text, str):
            raise ActionParseError(f'"text" must be a string, not {type(text).__name__}')
        return {
            "action_type": template["action_type"],
            "text": cap_text(text, int(template["max_length"])),
        }

"""The one rule every talking game shares: a message is a string of bounded length."""

from __future__ import annotations

from typing import ClassVar

from games.core.action_parser import ActionParser
from games.core.errors import ActionParseError, IllegalActionError
from games.core.game import Action


def checked_message_text(action: Action, limit: int, error: type[ValueError]) -> str:
    """The ``text`` of a message action, or ``error`` saying what is wrong with it.

    Parsers pass ``ActionParseError`` and engines ``IllegalActionError``, so the same words reach
    the agent whichever layer catches the problem first. Over-long text is refused, never cut.
    """
    text = action.get("text")
    if not isinstance(text, str):
        raise error('a message needs "text": a string')
    if len(text) > limit:
        raise error(f"the message has {len(text)} characters; the limit is {limit}: shorten it")
    return text


def record_message(
    messages: list[dict[str, str]], player: str, action: Action, limit: int, refusal: str
) -> None:
    """A turn of a game's talk phase: append ``player``'s message to ``messages``; any other
    action is refused with ``refusal`` (what the phase wants), over-long text as
    ``checked_message_text`` says."""
    if action.get("action_type") != "message":
        raise IllegalActionError(refusal)
    text = checked_message_text(action, limit, IllegalActionError)
    messages.append({"sender": player, "text": text})


class TalkingActionParser(ActionParser):
    """The parser of a game with talk: ``{"type": "message", "text": ...}`` (``message`` is
    accepted for ``text``) is checked here against its template's ``max_length``; any other action
    goes to ``validate_move``."""

    field_aliases: ClassVar[dict[str, str]] = {"message": "text"}

    def validate(self, action: Action, template: Action, valid_actions: list[Action]) -> Action:
        """Check a message's text; hand any other action to ``validate_move``."""
        if template["action_type"] == "message":
            text = checked_message_text(action, int(template["max_length"]), ActionParseError)
            return {"action_type": "message", "text": text}
        return self.validate_move(action, template, valid_actions)

    def validate_move(
        self, action: Action, template: Action, valid_actions: list[Action]
    ) -> Action:
        """Check an action that is not a message (default: ``ActionParser.validate``)."""
        return super().validate(action, template, valid_actions)

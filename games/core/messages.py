"""The one rule every talking game shares: a message is a string of bounded length."""

from __future__ import annotations

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

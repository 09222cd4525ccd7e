"""How the site prints scores and outcome reasons, the same in every table and summary."""

from __future__ import annotations

from typing import Any

from django import template

from games.core.presenter import number

register = template.Library()

#: What each outcome reason means, in words a participant can act on.
REASON_WORDS = {
    "normal": "",
    "timeout": "timed out: a call ran past its time budget",
    "illegal": "forfeited after four illegal actions in a row",
    "crash": "crashed: the agent's process died or broke the protocol",
    "init_error": "failed to start: loading the agent or on_match_start failed",
}


@register.filter
def score(value: Any) -> str:
    """``250`` not ``250.0``; thousands separated; empty for no score."""
    return number(value)


@register.filter
def reason_words(reason: Any) -> str:
    """An outcome reason as a sentence fragment (``normal`` says nothing)."""
    return REASON_WORDS.get(str(reason or ""), str(reason or ""))

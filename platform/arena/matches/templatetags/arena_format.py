"""How the site prints scores and outcome reasons, the same in every table and summary."""

from __future__ import annotations

from typing import Any

from django import template

from games.core.presenter import number
from games.core.record import reason_text

register = template.Library()


@register.filter
def score(value: Any) -> str:
    """``250`` not ``250.0``; thousands separated; empty for no score."""
    return number(value)


@register.filter
def reason_words(reason: Any) -> str:
    """An outcome reason as a sentence fragment (``normal`` says nothing)."""
    if str(reason or "normal") == "normal":
        return ""
    return reason_text(str(reason))

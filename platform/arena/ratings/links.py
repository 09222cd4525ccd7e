"""Links of the ratings' pages, built with one URL reversal a kind, not one a row."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.urls import reverse


def url_maker(name: str, *first: Any) -> Callable[[Any], str]:
    """``pk -> the URL of view`` ``name`` (its arguments ``first``, then ``pk``) with one URL
    reversal, not one a row."""
    sentinel = 987654321
    template = reverse(name, args=[*first, sentinel]).replace(str(sentinel), "{}")
    return template.format


def agent_url_maker() -> Callable[[Any], str]:
    """``agent_id -> its page's URL`` (``url_maker``)."""
    return url_maker("submissions:agent")

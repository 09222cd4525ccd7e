"""Simple-card's parser: the base parser's exact matching is all it needs."""

from games.core import ActionParser


class SimpleCardActionParser(ActionParser):
    """``{"type": "play_card", "card": 7}``; the card must be in hand."""

"""Split-or-steal's config (the defaults of ``rules.md``)."""

from pydantic import Field

from games.core.config import RoundsConfig


class SplitOrStealConfig(RoundsConfig):
    """Rounds, pot and the negotiation's shape."""

    rounds: int = Field(default=5, ge=1, le=50)
    pot: int = Field(default=100, ge=2, le=1_000_000)
    messages_per_round: int = Field(default=4, ge=0, le=20)
    max_message_chars: int = Field(default=280, ge=1, le=2000)

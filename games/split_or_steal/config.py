"""Split-or-steal's config (the defaults of ``rules.md``)."""

from typing import Any, ClassVar

from pydantic import Field

from games.core.config import RoundsConfig


class SplitOrStealConfig(RoundsConfig):
    """Rounds, pot and the negotiation's shape."""

    #: Validation plays two rounds, one message each before the choice.
    validation_overrides: ClassVar[dict[str, Any]] = {"rounds": 2, "messages_per_round": 1}
    validation_max_turns: ClassVar[int] = 12

    rounds: int = Field(default=5, ge=1, le=50)
    pot: int = Field(default=100, ge=2, le=1_000_000)
    messages_per_round: int = Field(default=4, ge=0, le=20)
    max_message_chars: int = Field(default=280, ge=1, le=2000)

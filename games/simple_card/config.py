"""Simple-card's config."""

from typing import Any, ClassVar

from pydantic import Field, model_validator

from games.core.config import RoundsConfig


class SimpleCardConfig(RoundsConfig):
    """Rounds, hand size and deck; every field is checked, unknown keys are refused."""

    #: Validation plays two rounds of two cards.
    validation_overrides: ClassVar[dict[str, Any]] = {"rounds": 2, "hand_size": 2}
    validation_max_turns: ClassVar[int] = 12

    rounds: int = Field(default=3, ge=1, le=10)
    hand_size: int = Field(default=3, ge=1, le=10)
    max_card: int = Field(default=10, ge=2, le=100)
    copies: int = Field(default=2, ge=1, le=4)

    @model_validator(mode="after")
    def _enough_cards(self) -> "SimpleCardConfig":
        if self.hand_size < self.rounds:
            raise ValueError("hand_size must be at least rounds: one card is played per round")
        if 2 * self.hand_size > self.max_card * self.copies:
            raise ValueError("the deck is too small to deal two hands")
        return self

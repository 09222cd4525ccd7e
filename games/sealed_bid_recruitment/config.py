"""Sealed-bid recruitment config (defaults of ``rules.md``)."""

from typing import Any, ClassVar

from pydantic import Field, model_validator

from games.core import GameConfig


class SealedBidRecruitmentConfig(GameConfig):
    """Recruit values, the season budget, fits and the pitch; unknown keys are refused."""

    #: Validation plays two recruits, one pitch each before the offers.
    validation_overrides: ClassVar[dict[str, Any]] = {
        "recruit_values": (80, 120),
        "messages_per_round": 1,
    }
    validation_max_turns: ClassVar[int] = 12

    #: One recruit per round; the match plays them in a seeded order, announced at the start.
    recruit_values: tuple[int, ...] = Field(default=(60, 80, 100, 120, 140), min_length=1)
    #: Each school's budget for the whole season; unspent budget is worth nothing.
    budget: int = Field(default=300, ge=0, le=1_000_000)
    #: Each school privately draws a fit in 0..max_fit at each round's start.
    max_fit: int = Field(default=40, ge=0, le=1_000)
    messages_per_round: int = Field(default=4, ge=0, le=20)
    max_message_chars: int = Field(default=500, ge=1, le=5_000)

    @model_validator(mode="after")
    def _positive_values(self) -> "SealedBidRecruitmentConfig":
        if any(v <= 0 for v in self.recruit_values):
            raise ValueError("recruit_values must all be positive")
        if len(self.recruit_values) > 50:
            raise ValueError("at most 50 recruits (one round each)")
        return self

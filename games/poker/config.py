"""Poker's config: the arena's table (20,000 chips, blinds 50/100, 100 hands, duplicate)."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, model_validator

from games.core import GameConfig


class PokerConfig(GameConfig):
    """Every field is checked; unknown keys are refused."""

    #: Validation plays two hands (the duplicate pair); 16 turns see every street when both
    #: seats check or call.
    validation_overrides: ClassVar[dict[str, Any]] = {"hands": 2}
    validation_max_turns: ClassVar[int] = 16

    #: Hands (rounds) per match.
    hands: int = Field(default=100, ge=1, le=10_000)
    #: Chips each player has at the start of every hand (stacks reset each hand, as in ACPC).
    starting_stack: int = Field(default=20_000, ge=2)
    #: The small blind, posted by the button.
    small_blind: int = Field(default=50, ge=1)
    #: The big blind; also the minimum opening bet.
    big_blind: int = Field(default=100, ge=1)
    #: Hands 2k+1 and 2k+2 deal the same cards with seats swapped (luck cancels out in pairs).
    duplicate: bool = True

    @model_validator(mode="after")
    def _blinds_fit(self) -> PokerConfig:
        if self.small_blind > self.big_blind:
            raise ValueError("small_blind must not be larger than big_blind")
        if self.starting_stack <= self.big_blind:
            raise ValueError("starting_stack must be larger than big_blind so both blinds can post")
        return self

"""Brinkmanship config (defaults of ``rules.md``)."""

from typing import Any, ClassVar

from pydantic import Field

from games.core.config import RoundsConfig


class BrinkmanshipConfig(RoundsConfig):
    """Crises, the threshold range and the payoffs; unknown keys are refused."""

    #: Validation plays two rounds.
    validation_overrides: ClassVar[dict[str, Any]] = {"rounds": 2}
    validation_max_turns: ClassVar[int] = 16

    rounds: int = Field(default=6, ge=1, le=50)
    pot: int = Field(default=100, ge=1, le=10_000)
    #: The hidden war threshold K is drawn uniformly from 1..max_threshold at each crisis.
    max_threshold: int = Field(default=5, ge=1, le=20)
    #: Each escalation costs both sides this much, whatever happens next.
    escalation_cost: int = Field(default=10, ge=0, le=1_000)
    #: What a war costs each side.
    war_penalty: int = Field(default=100, ge=0, le=10_000)
    max_message_chars: int = Field(default=280, ge=1, le=5_000)

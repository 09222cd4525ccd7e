"""Bulls and Cows config (defaults of ``rules.md``)."""

from typing import Any, ClassVar

from pydantic import Field

from games.core.config import RoundsConfig


class BullsAndCowsConfig(RoundsConfig):
    """Rounds, pot and the cycle limit; unknown keys are refused."""

    #: Validation plays two rounds, three probe cycles at most.
    validation_overrides: ClassVar[dict[str, Any]] = {"rounds": 2, "cycle_limit": 3}
    validation_max_turns: ClassVar[int] = 30

    rounds: int = Field(default=5, ge=1, le=50)
    pot: int = Field(default=100, ge=2, le=10_000)
    #: Question-and-guess cycles per round before it ends 0/0.
    cycle_limit: int = Field(default=10, ge=1, le=100)

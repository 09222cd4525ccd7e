"""Passcode config (defaults of ``rules.md``)."""

from pydantic import Field

from games.core.config import RoundsConfig


class PasscodeConfig(RoundsConfig):
    """Rounds, pot and the cycle limit; unknown keys are refused."""

    rounds: int = Field(default=5, ge=1, le=50)
    pot: int = Field(default=100, ge=2, le=10_000)
    #: Question-and-guess cycles per round before it ends 0/0.
    cycle_limit: int = Field(default=10, ge=1, le=100)

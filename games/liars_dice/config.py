"""Liar's dice config (defaults of ``rules.md``)."""

from typing import Any, ClassVar

from pydantic import Field

from games.core.config import RoundsConfig


class LiarsDiceConfig(RoundsConfig):
    """Rounds and dice per player; every field is checked, unknown keys are refused."""

    #: Validation plays two rounds with two dice each.
    validation_overrides: ClassVar[dict[str, Any]] = {"rounds": 2, "dice_per_player": 2}
    validation_max_turns: ClassVar[int] = 20

    rounds: int = Field(default=10, ge=1, le=50)
    dice_per_player: int = Field(default=5, ge=1, le=10)

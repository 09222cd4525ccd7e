"""Liar's dice config (defaults of ``rules.md``)."""

from pydantic import Field

from games.core.config import RoundsConfig


class LiarsDiceConfig(RoundsConfig):
    """Rounds and dice per player; every field is checked, unknown keys are refused."""

    rounds: int = Field(default=10, ge=1, le=50)
    dice_per_player: int = Field(default=5, ge=1, le=10)

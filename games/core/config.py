"""Configs: each game's pydantic config (``extra="forbid"``) and the ``ArenaConfig`` of a match."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field


class GameConfig(BaseModel):
    """Base of every game's config: unknown keys are refused, values are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: The short match an upload's validation plays: these fields over the defaults (a few
    #: turns of every phase and round kind; ``games.core.validation``).
    validation_overrides: ClassVar[dict[str, Any]] = {}
    #: And the referee's turn cap for it, so its time is bounded whatever the agent does.
    validation_max_turns: ClassVar[int] = 40


class RoundsConfig(GameConfig):
    """The config of a game played over ``rounds`` rounds (``RoundsGame``)."""

    rounds: int = Field(default=1, ge=1)


class PlayerSpec(BaseModel):
    """One seat: a stable player id the game uses and a display name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=64)
    name: str = Field(default="", max_length=200)


class ArenaConfig(BaseModel):
    """Everything ``create_game`` needs: the game id, the seats, the seed and the game's config."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    game: str
    players: list[PlayerSpec] = Field(min_length=1)
    seed: int = 0
    config: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def for_seats(
        cls, game: str, names: list[str], seed: int = 0, config: dict[str, Any] | None = None
    ) -> ArenaConfig:
        """The usual set-up: players ``p0``, ``p1``… named after ``names``."""
        return cls(
            game=game,
            players=[PlayerSpec(id=f"p{i}", name=n) for i, n in enumerate(names)],
            seed=seed,
            config=config or {},
        )

"""The short match that validates an upload: each game's ``GameConfig.validation_overrides``
(a few turns of every phase, every kind of round) and ``validation_max_turns`` (the referee's
cap), and the time it takes at most.

Validation proves the agent loads, answers every lifecycle call (``on_match_start``,
``on_round_start``, ``on_turn``, ``on_round_end``, ``on_match_end``) and plays legally; playing
a full default match (two chess games at a second a move: minutes) adds nothing to that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.core.config import ArenaConfig
from games.core.referee import MatchSettings
from games.core.registry import create_game, get_game_spec

#: Validation is a self-play: two seats.
SEATS = 2


@dataclass(frozen=True)
class ValidationPlan:
    """What a game's validation plays and how long it can take."""

    game: str
    #: The match config (the game's defaults with its validation overrides).
    config: dict[str, Any]
    #: The referee's turn cap (``MatchSettings.max_turns``).
    max_turns: int
    #: Rounds of the short match (each brings ``on_round_start`` and ``on_round_end``).
    rounds: int

    def bound_s(self, settings: MatchSettings | None = None) -> float:
        """The longest a validation takes, in seconds, for an agent that plays legally and
        uses its whole budget on every call: loading and ``on_match_start`` (both seats at
        once), then every call of both seats one after another."""
        settings = settings or MatchSettings()
        per_call_s = settings.turn_timeout_s + settings.backstop_grace_s
        calls = self.max_turns + SEATS * (2 * self.rounds + 1)
        return settings.init_timeout_s + settings.backstop_grace_s + calls * per_call_s


def validation_plan(game_id: str) -> ValidationPlan:
    """The validation match of ``game_id`` (its config's validation overrides and turn cap)."""
    spec = get_game_spec(game_id)
    config_class = spec.config_class
    config = config_class(**config_class.validation_overrides).model_dump(mode="json")
    game = create_game(ArenaConfig.for_seats(game_id, ["a", "b"], 0, config))
    return ValidationPlan(
        game=game_id,
        config=config,
        max_turns=config_class.validation_max_turns,
        rounds=int(game.total_rounds),
    )

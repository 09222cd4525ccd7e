"""What the game tests share: a game made as the referee makes it, what a seat's agent is sent,
a parser that refuses instead of falling back, and a match between in-process agents."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from games.core import (
    ActionParser,
    ArenaConfig,
    Game,
    InProcessAgentHandle,
    MatchRecord,
    MatchSettings,
    create_game,
    get_game_spec,
    play_match,
)
from games.core.registry import offline_judge

#: Bots are judged on their moves, not the clock: a loaded CI machine must not decide.
UNTIMED = MatchSettings(timed=False)
#: The same without the agents' stdout, for the long series of house-bot matches.
UNTIMED_QUIET = MatchSettings(timed=False, keep_stdout=False)

G = TypeVar("G", bound=Game)


def new_game(game_class: type[G], seed: int = 0, **config: Any) -> G:
    """A game of ``game_class`` for players ``p0`` and ``p1``, made by ``create_game`` (the
    config validated as for a match)."""
    arena = ArenaConfig.for_seats(game_class.game_type, ["a", "b"], seed, dict(config))
    game = create_game(arena, judge=offline_judge(game_class.game_type))
    assert isinstance(game, game_class)
    return game


def round_state(game: Game, player_id: str) -> dict[str, Any]:
    """The round state ``player_id``'s agent would be sent now (the game's state adapter)."""
    adapter = get_game_spec(game.game_type).state_adapter_class()
    return adapter.to_round_state(
        game.get_public_state(),
        game.get_private_state(player_id),
        player_id,
        game.get_available_actions(),
    )


def strict_parser(game_type: str) -> ActionParser:
    """The game's action parser, refusing an unreadable reply instead of playing at random."""
    return get_game_spec(game_type).action_parser_class(fallback_to_random=False)


def untimed_match(
    game_type: str,
    *agents: tuple[Callable[[], Any], str],
    seed: int = 0,
    config: dict[str, Any] | None = None,
    settings: MatchSettings = UNTIMED,
) -> MatchRecord:
    """A match between in-process agents, one ``(agent class, name)`` per seat, untimed."""
    handles = [InProcessAgentHandle(agent, name) for agent, name in agents]
    return play_match(
        game_type,
        handles,
        seed=seed,
        config=config,
        settings=settings,
        judge=offline_judge(game_type),
    )


def house_match(
    game_type: str, first: str, second: str, *, seed: int = 0, config: dict[str, Any] | None = None
) -> MatchRecord:
    """A match between two of the game's house bots (seats named after them), untimed, without
    their stdout."""
    bots = get_game_spec(game_type).bots
    return untimed_match(
        game_type,
        (bots[first], first),
        (bots[second], second),
        seed=seed,
        config=config,
        settings=UNTIMED_QUIET,
    )


def say(game: Game, count: int, text: str = "hi") -> list[str]:
    """``count`` messages, each by whoever is to speak; returns who spoke, in order."""
    speakers = []
    for _ in range(count):
        speakers.append(game.get_current_player())
        game.step({"action_type": "message", "text": text})
    return speakers


def play_both(game: Game, first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """A simultaneous phase: ``first`` then ``second``; returns the info of the second."""
    game.step(first)
    info, _ = game.step(second)
    return info

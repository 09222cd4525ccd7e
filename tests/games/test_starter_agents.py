"""Every game's starter agent, as a participant downloads it: standard library only (the sandbox
image has nothing else), and it plays a whole match against a house bot without one refusal."""

from __future__ import annotations

import ast
import sys

import pytest

from games.core import (
    ArenaConfig,
    InProcessAgentHandle,
    MatchSettings,
    available_game_ids,
    create_game,
    get_game_spec,
    play_match,
)
from games.core.registry import offline_judge

#: The opponent each starter meets, and config that keeps the slow games short.
OPPONENTS = {
    "simple-card": ("highest", 1, {}),
    "split-or-steal": ("message-reader", 1, {}),
    "liars-dice": ("reader", 3, {}),
    "sealed-bid-recruitment": ("shading", 2, {}),
    "brinkmanship": ("equilibrium", 1, {}),
    "bulls-and-cows": ("solver", 5, {}),
    "chess": ("random", 0, {}),
    "poker": ("raise-happy", 3, {"hands": 20}),
    "nil-recruitment": ("tailored", 1, {"rounds": 2}),
    "nuclear-war": ("measured", 1, {"rounds": 2}),
    "passcode": ("halver", 1, {"rounds": 2}),
}


def test_every_registered_game_has_a_starter_opponent_here() -> None:
    assert sorted(OPPONENTS) == sorted(available_game_ids())


@pytest.mark.parametrize("game", sorted(OPPONENTS))
def test_the_starter_imports_only_the_standard_library(game: str) -> None:
    tree = ast.parse(get_game_spec(game).starter_source())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported <= set(sys.stdlib_module_names)


@pytest.mark.parametrize("game", sorted(OPPONENTS))
def test_the_starter_plays_a_whole_match_legally(game: str) -> None:
    spec = get_game_spec(game)
    bot, seed, config = OPPONENTS[game]
    record = play_match(
        game,
        [
            InProcessAgentHandle.from_source(spec.starter_source(), "starter"),
            InProcessAgentHandle(spec.bots[bot], bot),
        ],
        seed=seed,
        config=config,
        # Judged on its moves, not the clock: a loaded CI machine must not decide.
        settings=MatchSettings(timed=False),
        judge=offline_judge(game),
    )
    assert record.platform_error is None
    assert [str(s.reason) for s in record.seats] == ["normal", "normal"]
    rounds = create_game(
        ArenaConfig.for_seats(game, ["a", "b"], seed, config), judge=offline_judge(game)
    ).total_rounds
    assert record.rounds_played == rounds
    assert not [e for e in record.log if e.get("illegal")]
    # The starters show what print() is for: something reaches the owner on the first turns.
    assert any(e.get("stdout") for e in record.log if e["seat"] == 0)

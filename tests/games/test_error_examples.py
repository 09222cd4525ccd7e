"""Every example an action error shows is a legal action of that game: in every state of a
seeded playthrough of each game, the example that a refused reply (a plain string, a list, a
dict without a type) is answered with parses back as a legal action and the game applies it."""

from __future__ import annotations

import copy
import json
import random
import re

import pytest

from games.core import ActionParseError, available_game_ids, get_game_spec
from games.core.config import ArenaConfig
from games.core.registry import create_game, offline_judge

#: The ``such as {...}`` an error message carries.
EXAMPLE = re.compile(r"such as (\{.*?\})(?: \(|, got|$)")
#: Replies an agent gets wrong: each error must show a legal example.
WRONG_REPLIES: list[object] = ["I fold", ["move"], 42, None]


def examples_shown(parser: object, valid: list[dict[str, object]]) -> list[dict[str, object]]:
    found = []
    for reply in WRONG_REPLIES:
        try:
            parser._parse(reply, valid)  # type: ignore[attr-defined]
        except ActionParseError as exc:
            match = EXAMPLE.search(str(exc))
            assert match, f"the error for {reply!r} shows no example: {exc}"
            found.append(json.loads(match.group(1)))
        else:
            raise AssertionError(f"{reply!r} was accepted")
    return found


@pytest.mark.parametrize("game_id", available_game_ids())
def test_every_example_an_error_shows_is_a_legal_action(game_id: str) -> None:
    spec = get_game_spec(game_id)
    game = create_game(
        ArenaConfig.for_seats(game_id, ["A", "B"], 7, None), judge=offline_judge(game_id)
    )
    parser = spec.action_parser_class(fallback_to_random=False, seed=7)
    rng = random.Random(7)
    checked = 0
    for _ in range(3000):
        if game.is_over():
            break
        valid = game.get_available_actions()
        for example in examples_shown(parser, valid):
            assert "max_length" not in example and "min" not in example, example
            action = parser.parse(example, valid)  # raises if the example is not legal
            trial = copy.deepcopy(game)
            trial.step(action)  # the game applies it: raises if it refuses
            checked += 1
        parser._rng = rng
        game.step(parser.get_random_action(valid))
    assert game.is_over() and checked > 0

"""Every pairing of house bots plays legally and replays identically from the same seed.

Chess and poker have their own bot tests (tests/games/chess, tests/games/poker): their strong bots
are slow enough that every pairing twice would dominate the suite.
"""

from __future__ import annotations

from itertools import combinations

import pytest

from games.core import InProcessAgentHandle, MatchSettings, get_game_spec, play_match
from games.core.registry import offline_judge

GAMES = (
    "simple-card",
    "split-or-steal",
    "liars-dice",
    "sealed-bid-recruitment",
    "brinkmanship",
    "bulls-and-cows",
    "nil-recruitment",
    "nuclear-war",
    "passcode",
)
PAIRINGS = [
    (game, a, b) for game in GAMES for a, b in combinations(sorted(get_game_spec(game).bots), 2)
]


def _play(game: str, a: str, b: str, seed: int):
    bots = get_game_spec(game).bots
    return play_match(
        game,
        [InProcessAgentHandle(bots[a], a), InProcessAgentHandle(bots[b], b)],
        seed=seed,
        settings=MatchSettings(timed=False, keep_stdout=False),
        judge=offline_judge(game),
    )


@pytest.mark.parametrize(("game", "a", "b"), PAIRINGS)
def test_every_pairing_plays_legally_and_replays_identically(game: str, a: str, b: str) -> None:
    first, second = _play(game, a, b, 11), _play(game, a, b, 11)
    assert first.platform_error is None
    assert [str(s.reason) for s in first.seats] == ["normal", "normal"]
    assert not [e for e in first.log if e.get("illegal")]
    assert [s.score for s in first.seats] == [s.score for s in second.seats]
    assert first.rounds == second.rounds

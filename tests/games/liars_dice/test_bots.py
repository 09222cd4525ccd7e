"""liars-dice house bots: legal, deterministic for a seed, and in the registry."""

from __future__ import annotations

from itertools import combinations

import pytest

from games.core import InProcessAgentHandle, MatchSettings, get_game_spec, play_match

GAME = "liars-dice"
BOTS = get_game_spec(GAME).bots


def _play(a: str, b: str, seed: int):
    return play_match(
        GAME,
        [InProcessAgentHandle(BOTS[a], a), InProcessAgentHandle(BOTS[b], b)],
        seed=seed,
        settings=MatchSettings(timed=False, keep_stdout=False),
    )


@pytest.mark.parametrize(("a", "b"), list(combinations(sorted(BOTS), 2)))
def test_every_pairing_plays_legally_and_replays_identically(a: str, b: str) -> None:
    first, second = _play(a, b, 11), _play(a, b, 11)
    assert first.platform_error is None
    assert [str(s.reason) for s in first.seats] == ["normal", "normal"]
    assert not [e for e in first.log if e.get("illegal")]
    assert [s.score for s in first.seats] == [s.score for s in second.seats]
    assert first.round_results == second.round_results

"""Each game's strong house bot is one a newcomer has to think to beat (seeded, so repeatable)."""

from __future__ import annotations

import random

import pytest

from games.bulls_and_cows.solver import (
    ALL_CODES,
    History,
    best_probe,
    consistent,
    quickest_probe,
    score,
)
from games.core.tournament import play_round_robin


@pytest.mark.slow
@pytest.mark.parametrize("opponent", ["random", "highest", "lowest"])
def test_simple_card_counter_beats_every_other_house_bot(opponent: str) -> None:
    robin = play_round_robin("simple-card", ["counter", opponent], matches_per_pair=100, seed=0)
    pair = robin.pairs[0]
    assert pair.a_wins > pair.b_wins, pair.to_dict()


@pytest.mark.slow  # over 30 s on two busy cores: out of make test-fast
def test_bulls_and_cows_strong_beats_the_plain_solver_clearly() -> None:
    robin = play_round_robin("bulls-and-cows", ["strong", "solver"], matches_per_pair=40, seed=0)
    pair = robin.pairs[0]
    assert pair.a_wins >= 0.7 * pair.matches, pair.to_dict()


def _probes_until_known(prober: object, code: str) -> int:
    history: History = ()
    for asked in range(1, 11):
        probe = prober(history)  # type: ignore[operator]
        history = (*history, (probe, score(probe, code)))
        if len(consistent(history)) == 1:
            return asked
    return 11


@pytest.mark.slow  # over 30 s on two busy cores: out of make test-fast
def test_the_quickest_prober_knows_the_code_sooner_than_minimax_on_average() -> None:
    codes = random.Random(7).sample(ALL_CODES, 60)
    quick = sum(_probes_until_known(quickest_probe, c) for c in codes)
    minimax = sum(_probes_until_known(best_probe, c) for c in codes)
    assert quick < minimax
    assert max(_probes_until_known(quickest_probe, c) for c in codes) <= 7

"""Issue 13 point 1, the platform side: on a ladder of the house bots, played through the real
match task and rated by ``rating_apply``, the non-zero-sum games rank by mean payoff and the
one-line bots that never lose a match head to head (always-steal, always-stand) do not come
first."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from arena.matches.services import match_create
from arena.ratings.selectors import leaderboard_page
from arena.submissions.services import house_submission_ensure
from arena.workflows.matches import match_run

from games.core import get_game_spec

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("game", "trivial"), [("split-or-steal", "always-steal"), ("nuclear-war", "always-stand")]
)
def test_a_house_bot_ladder_does_not_crown_the_trivial_bot(
    game: str, trivial: str, settings: Any
) -> None:
    settings.ARENA_RANKING_MIN_MATCHES = 4
    spec = get_game_spec(game)
    assert spec.ranking == "mean_payoff"
    bots = {name: house_submission_ensure(game=game, bot=name) for name in sorted(spec.bots)}
    for (a, b), seed in itertools.product(itertools.permutations(bots, 2), (1, 2)):
        match = match_create(kind="ranked", submissions=[bots[a], bots[b]], seed=seed)
        match_run(match_id=match.pk)
    board = leaderboard_page(game=game)
    assert board.total == len(bots)
    assert all(row["ranked"] for row in board.rows)
    order = [row["agent"].removesuffix(" v1") for row in board.rows]
    assert order[0] != trivial, order
    means = [row["mean_payoff"] for row in board.rows]
    assert means == sorted(means, reverse=True)
    # Head to head the trivial bot never loses, which is what Elo rewards.
    trivial_row = next(r for r in board.rows if r["agent"].startswith(trivial))
    assert trivial_row["losses"] == 0

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
    ("game", "trivial"),
    [
        ("split-or-steal", "always-steal"),
        # Over 30 s on two busy cores: out of make test-fast (split-or-steal keeps the rule there).
        pytest.param("brinkmanship", "always-stand", marks=pytest.mark.slow),
    ],
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


def test_the_home_pages_top_of_a_payoff_ladder_holds_only_ranked_entries(settings: Any) -> None:
    from arena.ratings.models import Rating
    from arena.ratings.selectors import leaderboard_top
    from arena.ratings.services import rating_ensure
    from django.test import Client

    settings.ARENA_RANKING_MIN_MATCHES = 5
    spec = get_game_spec("split-or-steal")
    bots = [house_submission_ensure(game=spec.id, bot=name) for name in sorted(spec.bots)]
    for bot in bots:
        rating_ensure(submission=bot)
    ratings = Rating.objects.filter(game=spec.id, game_version=spec.version)
    assert ratings.count() == len(bots)
    # One lucky match: the best mean payoff, but not yet ranked.
    ratings.filter(submission=bots[0]).update(games=1, payoff_sum=100.0, mean_payoff=100.0)
    assert leaderboard_top(game=spec.id) == []
    assert "nobody ranked yet: an agent is ranked after 5 matches" in Client().get("/").text
    ratings.filter(submission=bots[1]).update(games=5, payoff_sum=10.0, mean_payoff=2.0)
    assert [row["submission"] for row in leaderboard_top(game=spec.id)] == [bots[1].pk]

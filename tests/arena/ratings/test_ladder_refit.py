"""The ladders' maximum-likelihood refit: what a leaderboard shows between two refits is the
fit of every rated result, moved by Elo for the matches since, with the interval around it."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from arena.ratings import bradley_terry
from arena.ratings.models import LadderRefit, Rating
from arena.ratings.selectors import leaderboard_page
from arena.ratings.services import ladder_refit, ladders_refit, ratings_recompute
from arena.submissions.models import Submission

from games.core.ranking import elo_interval
from tests.arena.ratings.test_ladder import make_entries, play, row_of
from tests.conftest import rerun_on_postgres

pytestmark = pytest.mark.django_db

SCORE = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def _round_robin(subs: list[Submission], rng: random.Random, rounds: int) -> list[Any]:
    """Matches between random pairs, the better-numbered entry winning more often."""
    played = []
    for _ in range(rounds):
        a, b = rng.sample(subs, 2)
        outcome = "win" if rng.random() < (0.75 if a.pk > b.pk else 0.25) else "loss"
        if rng.random() < 0.1:
            outcome = "draw"
        play(a, b, outcome)
        played.append((a.pk, b.pk, SCORE[outcome]))
    return played


def _fit_of_matches(played: list[tuple[int, int, float]]) -> dict[int, tuple[float, float]]:
    """The fit of the matches themselves, one result a match (not the stored pair records)."""
    return bradley_terry.ladder_fit([(a, b, 1.0, s) for a, b, s in played]).of()


def test_a_refit_shows_the_fit_of_every_result_with_its_interval() -> None:
    subs = make_entries("chess", 8)
    played = _round_robin(subs, random.Random(4), 60)
    version = subs[0].game_version
    refit = ladder_refit(game="chess", game_version=version)
    assert refit is not None and refit.matches == 60 and refit.entries == 8
    expected = _fit_of_matches(played)
    for sub in subs:
        row = row_of(sub)
        rating, deviation = expected[sub.pk]
        assert row.rating == pytest.approx(rating, abs=0.01)
        assert row.deviation == pytest.approx(deviation, abs=0.01)
        interval = elo_interval(row.rating, row.deviation)
        assert row.rating_low == pytest.approx(interval.low)
        assert row.rating_high == pytest.approx(interval.high)
    # The leaderboard orders by and shows the fitted numbers.
    board = leaderboard_page(game="chess")
    assert [r["submission"] for r in board.rows] == sorted(
        (s.pk for s in subs), key=lambda pk: -expected[pk][0]
    )
    # Nothing played since: no second fit.
    assert ladder_refit(game="chess", game_version=version) is None
    # A match moves the two rows by Elo from the fitted ratings; the next pass refits them.
    a, b = subs[0], subs[1]
    before = row_of(a).rating
    play(a, b, "win")
    assert row_of(a).rating > before
    assert ladders_refit() == 61
    played.append((a.pk, b.pk, 1.0))
    assert row_of(a).rating == pytest.approx(_fit_of_matches(played)[a.pk][0], abs=0.01)


def test_a_row_that_plays_while_the_fit_runs_keeps_its_own_update(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    subs = make_entries("chess", 6)
    _round_robin(subs, random.Random(7), 30)
    fit = bradley_terry.ladder_fit
    late: dict[str, float] = {}

    def fit_while_a_match_finishes(*args: Any, **kwargs: Any) -> Any:
        found = fit(*args, **kwargs)
        play(subs[0], subs[1], "draw")  # applied after the snapshot, before the write
        late.update(a=row_of(subs[0]).rating, b=row_of(subs[1]).rating)
        return found

    monkeypatch.setattr(bradley_terry, "ladder_fit", fit_while_a_match_finishes)
    refit = ladder_refit(game="chess", game_version=subs[0].game_version)
    assert refit is not None and (refit.entries, refit.skipped) == (4, 2)
    assert (row_of(subs[0]).rating, row_of(subs[1]).rating) == (late["a"], late["b"])
    # Their match is not behind this fit: the next pass fits again.
    monkeypatch.setattr(bradley_terry, "ladder_fit", fit)
    again = ladder_refit(game="chess", game_version=subs[0].game_version)
    assert again is not None and again.matches == 31 and again.skipped == 0


def test_a_recompute_replays_elo_and_the_next_pass_fits_it_again() -> None:
    subs = make_entries("chess", 5)
    played = _round_robin(subs, random.Random(2), 25)
    version = subs[0].game_version
    assert ladder_refit(game="chess", game_version=version) is not None
    fitted = {s.pk: row_of(s).rating for s in subs}
    ratings_recompute(game="chess", game_version=version)
    assert not LadderRefit.objects.filter(game="chess").exists()
    assert {s.pk: row_of(s).rating for s in subs} != fitted  # Elo's replay
    assert ladder_refit(game="chess", game_version=version) is not None
    expected = _fit_of_matches(played)
    assert {s.pk: row_of(s).rating for s in subs} == {
        pk: pytest.approx(expected[pk][0], abs=0.01) for pk in fitted
    }


def test_entries_that_never_played_are_left_as_they_are() -> None:
    subs = make_entries("chess", 4)
    play(subs[0], subs[1], "win")
    ladder_refit(game="chess", game_version=subs[0].game_version)
    fresh = Rating()
    for sub in subs[2:]:
        row = row_of(sub)
        assert (row.rating, row.deviation) == (fresh.rating, fresh.deviation)
    assert row_of(subs[0]).rating > row_of(subs[1]).rating


def test_the_refit_on_postgresql(tmp_path: Path) -> None:
    """The row locks and the bulk write of the refit, on the database production runs."""
    rerun_on_postgres(tmp_path, __file__, "-k", "not on_postgresql", timeout_s=300)

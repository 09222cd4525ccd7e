"""The ladder measures: mean payoff with its interval and minimum, Elo, and who comes first."""

from __future__ import annotations

import math

import pytest

from arena_cli.games_cmd import simulate
from games.core import get_game_spec
from games.core.ranking import (
    elo_k,
    elo_ratings,
    payoff_summary,
    rank_by_mean_payoff,
    student_t_quantile,
)
from games.core.tournament import play_round_robin


@pytest.mark.parametrize(
    ("df", "table"),
    [(1, 12.706), (2, 4.303), (3, 3.182), (5, 2.571), (10, 2.228), (30, 2.042), (200, 1.972)],
)
def test_t_quantile_matches_the_printed_tables(df: int, table: float) -> None:
    assert student_t_quantile(0.975, df) == pytest.approx(table, abs=0.006)


def test_payoff_summary_gives_the_mean_and_a_student_t_interval() -> None:
    summary = payoff_summary([1, 2, 3, 4, 5], min_matches=5)
    assert summary.mean == 3
    half = 2.776 * math.sqrt(2.5) / math.sqrt(5)
    assert summary.ci_low == pytest.approx(3 - half, abs=0.01)
    assert summary.ci_high == pytest.approx(3 + half, abs=0.01)
    assert summary.qualified


def test_payoff_summary_below_the_minimum_or_with_one_match() -> None:
    assert not payoff_summary([10, 20], min_matches=3).qualified
    one = payoff_summary([7.0], min_matches=1)
    assert (one.mean, one.ci_low, one.ci_high, one.half_width) == (7.0, None, None, None)
    empty = payoff_summary([], min_matches=1)
    assert (empty.matches, empty.qualified) == (0, False)


def test_ranking_orders_qualified_agents_by_mean_and_leaves_the_rest_unranked() -> None:
    standings = rank_by_mean_payoff(
        {"few-but-high": [500.0], "low": [1.0, 2.0, 3.0], "high": [9.0, 9.0, 12.0]},
        min_matches=3,
    )
    assert [(s.agent, s.rank) for s in standings] == [
        ("high", 1),
        ("low", 2),
        ("few-but-high", None),
    ]


def test_elo_moves_the_winner_up_and_is_symmetric() -> None:
    ratings = elo_ratings([("a", "b", 1.0)])
    assert ratings["a"] == pytest.approx(1200.0 + elo_k(0) / 2)
    assert ratings["b"] == pytest.approx(1200.0 - elo_k(0) / 2)
    assert elo_ratings([("a", "b", 0.5)]) == {"a": 1200.0, "b": 1200.0}


def test_each_game_declares_its_ladder_measure() -> None:
    measures = {g: get_game_spec(g).ranking for g in ("split-or-steal", "brinkmanship")}
    assert measures == {"split-or-steal": "mean_payoff", "brinkmanship": "mean_payoff"}
    for game in (
        "chess",
        "poker",
        "liars-dice",
        "bulls-and-cows",
        "sealed-bid-recruitment",
        "simple-card",
    ):
        assert get_game_spec(game).ranking == "elo", game


def test_nil_recruitment_is_constant_sum_so_elo_fits_it() -> None:
    # Every recruit signs with exactly one school and offers come out of a budget worth nothing
    # at the end: both totals always add up to the sum of the recruits' values.
    robin = play_round_robin("sealed-bid-recruitment", matches_per_pair=4, seed=5)
    totals = {round(p.a_score_total + p.b_score_total) / p.matches for p in robin.pairs}
    assert totals == {500.0}


@pytest.mark.parametrize(
    ("game", "trivial"), [("split-or-steal", "always-steal"), ("brinkmanship", "always-stand")]
)
def test_the_trivial_bot_never_loses_a_match_yet_does_not_top_the_ladder(
    game: str, trivial: str
) -> None:
    robin = play_round_robin(game, matches_per_pair=6, seed=100)
    standings = robin.standings(min_matches=1)
    trivial_row = next(row for row in standings if row["bot"] == trivial)
    assert trivial_row["losses"] == 0  # what made an Elo ladder crown it
    assert standings[0]["bot"] != trivial
    assert standings[0]["mean_payoff"] > trivial_row["mean_payoff"]


def test_simulate_reports_mean_payoff_with_an_interval_for_a_mean_payoff_game() -> None:
    out = simulate("brinkmanship", ["reputation", "equilibrium"], seed=0, matches=6)
    summary = out["summary"]
    assert summary["ranking"] == "mean_payoff"
    for seat, measure in enumerate(summary["mean_payoff"]):
        scores = [m["scores"][seat] for m in out["matches"]]
        assert measure["mean"] == pytest.approx(sum(scores) / len(scores), abs=0.001)
        assert measure["ci95_low"] <= measure["mean"] <= measure["ci95_high"]
        assert measure["matches"] == 6


def test_simulate_reports_elo_for_an_elo_game() -> None:
    out = simulate("liars-dice", ["reader", "random"], seed=0, matches=4)
    summary = out["summary"]
    assert summary["ranking"] == "elo"
    assert summary["elo"][0] > 1200 > summary["elo"][1]


def test_a_ladder_rows_running_sums_give_the_same_payoff_summary() -> None:
    from games.core.ranking import payoff_summary_of_sums

    payoffs = [0.0, 50.0, 50.0, 100.0, 25.0]
    direct = payoff_summary(payoffs, min_matches=3)
    summed = payoff_summary_of_sums(
        sum(payoffs), sum(p * p for p in payoffs), len(payoffs), min_matches=3
    )
    assert (summed.matches, summed.qualified) == (direct.matches, direct.qualified)
    assert summed.mean == pytest.approx(direct.mean)
    assert summed.half_width == pytest.approx(direct.half_width)
    assert payoff_summary_of_sums(0.0, 0.0, 0).matches == 0


def test_elo_ratings_replays_the_one_elo_update() -> None:
    from games.core.ranking import EloSide, elo_update

    a, b = elo_update(EloSide(1200.0, 0), EloSide(1200.0, 0), 1.0)
    assert elo_ratings([("a", "b", 1.0)]) == {"a": a, "b": b}
    a2, b2 = elo_update(EloSide(a, 1), EloSide(b, 1), 0.0)
    assert elo_ratings([("a", "b", 1.0), ("a", "b", 0.0)]) == {"a": a2, "b": b2}

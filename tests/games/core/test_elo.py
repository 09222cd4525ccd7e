"""Elo arithmetic (docs/architecture.md, "Ratings and matchmaking")."""

from __future__ import annotations

import pytest

from games.core.ranking import EloSide, elo_expected, elo_k, elo_update


def test_equal_ratings_expect_half() -> None:
    assert elo_expected(1200, 1200) == 0.5


def test_four_hundred_points_is_ten_to_one() -> None:
    assert elo_expected(1600, 1200) == pytest.approx(10 / 11)


def test_k_shrinks_with_games_down_to_its_floor() -> None:
    ks = [elo_k(games) for games in range(100)]
    assert ks == sorted(ks, reverse=True)
    assert elo_k(0) == pytest.approx(700 / 3)
    assert elo_k(30) == pytest.approx(700 / 33)
    assert (elo_k(41), elo_k(1000)) == (16, 16)


def test_a_win_between_newcomers_moves_each_by_half_their_k() -> None:
    a, b = elo_update(EloSide(1200, 0), EloSide(1200, 0), 1.0)
    assert (a, b) == (pytest.approx(1200 + 700 / 6), pytest.approx(1200 - 700 / 6))


def test_a_draw_moves_the_stronger_down() -> None:
    a, b = elo_update(EloSide(1400, 30), EloSide(1200, 30), 0.5)
    assert a < 1400 and b > 1200 and a + b == pytest.approx(2600)


def test_each_side_uses_its_own_k() -> None:
    a, b = elo_update(EloSide(1200, 50), EloSide(1200, 0), 0.0)
    assert (a, b) == (1192, pytest.approx(1200 + 700 / 6))


def test_only_win_draw_loss_scores() -> None:
    with pytest.raises(ValueError):
        elo_update(EloSide(1200, 0), EloSide(1200, 0), 0.7)

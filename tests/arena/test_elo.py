"""Elo arithmetic (DESIGN.md §7)."""

from __future__ import annotations

import pytest
from arena.ratings.elo import Standing, expected_score, k_factor, updated_ratings


def test_equal_ratings_expect_half() -> None:
    assert expected_score(1200, 1200) == 0.5


def test_four_hundred_points_is_ten_to_one() -> None:
    assert expected_score(1600, 1200) == pytest.approx(10 / 11)


def test_provisional_k_is_40_then_20() -> None:
    assert (k_factor(0), k_factor(19), k_factor(20)) == (40, 40, 20)


def test_a_win_between_newcomers_moves_twenty_points_each() -> None:
    assert updated_ratings(Standing(1200, 0), Standing(1200, 0), 1.0) == (1220, 1180)


def test_a_draw_moves_the_stronger_down() -> None:
    a, b = updated_ratings(Standing(1400, 30), Standing(1200, 30), 0.5)
    assert a < 1400 and b > 1200 and a + b == pytest.approx(2600)


def test_each_side_uses_its_own_k() -> None:
    a, b = updated_ratings(Standing(1200, 50), Standing(1200, 0), 0.0)
    assert (a, b) == (1190, 1220)


def test_only_win_draw_loss_scores() -> None:
    with pytest.raises(ValueError):
        updated_ratings(Standing(1200, 0), Standing(1200, 0), 0.7)

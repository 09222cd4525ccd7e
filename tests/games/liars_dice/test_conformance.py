"""Liar's dice passes the shared conformance check."""

from games.core.conformance import check_game


def test_conformance() -> None:
    check_game("liars-dice", seeds=range(6))


def test_conformance_with_small_config() -> None:
    check_game("liars-dice", seeds=range(5), config={"rounds": 2, "dice_per_player": 2})

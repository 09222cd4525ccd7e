"""Liar's dice passes the shared conformance check."""

import pytest

from games.core.conformance import check_game


@pytest.mark.slow  # over 30 s on two busy cores: out of make test-fast
def test_conformance() -> None:
    check_game("liars-dice", seeds=range(6))


def test_conformance_with_small_config() -> None:
    check_game("liars-dice", seeds=range(5), config={"rounds": 2, "dice_per_player": 2})

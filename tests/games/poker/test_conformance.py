"""Poker passes the shared conformance check (random legal play, determinism, views)."""

from __future__ import annotations

import pytest

from games.core.conformance import check_game


@pytest.mark.slow  # over 30 s on two busy cores: out of make test-fast
def test_poker_passes_the_conformance_check() -> None:
    check_game("poker", seeds=range(2))


def test_poker_passes_the_conformance_check_on_short_stacks() -> None:
    # Short stacks reach all-ins, calls for less and incomplete raises far more often.
    check_game("poker", seeds=range(2, 6), config={"hands": 20, "starting_stack": 400})

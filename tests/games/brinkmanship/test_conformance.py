"""Brinkmanship passes the shared conformance check."""

from games.core.conformance import check_game


def test_conformance() -> None:
    check_game("brinkmanship", seeds=range(15))

"""Nuclear war passes the shared conformance check."""

from games.core.conformance import check_game


def test_conformance() -> None:
    check_game("nuclear-war", seeds=range(15))

"""Chess passes the shared conformance check (random legal play, determinism, views)."""

from __future__ import annotations

import pytest

from games.core.conformance import check_game


@pytest.mark.slow  # over 30 s on two busy cores: out of make test-fast
def test_chess_passes_the_conformance_check() -> None:
    # Random chess games run long (many reach the 1000-ply cap), so few full-length seeds...
    check_game("chess", seeds=range(2))


def test_chess_passes_the_conformance_check_on_short_games() -> None:
    # ...and more seeds with a short cap, starting from an endgame where mates and dead
    # positions come quickly.
    check_game(
        "chess",
        seeds=range(2, 5),
        config={"max_plies": 100, "start_fen": "4k3/pp3ppp/8/8/8/8/PP3PPP/R3K2R w KQ - 0 1"},
    )

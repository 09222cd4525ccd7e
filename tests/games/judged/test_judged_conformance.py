"""The judged games pass the shared conformance check (a judge answering from each request)."""

import pytest

from games.core.conformance import check_game


@pytest.mark.parametrize("game_id", ["nil-recruitment", "nuclear-war", "passcode"])
def test_conformance(game_id: str) -> None:
    check_game(game_id, seeds=range(6))

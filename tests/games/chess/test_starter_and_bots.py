"""The chess starter agent runs unchanged (standard library only) and the house bots are sound."""

from __future__ import annotations

import pytest

from games.chess.bots import GreedyBot, SearchBot
from tests.games.helpers import untimed_match


def test_search_bot_takes_a_hanging_queen_and_mates_in_one() -> None:
    # White to move: the black queen on d5 hangs to the pawn on e4.
    state = {"fen": "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", "moves": []}
    assert SearchBot().on_turn(state) == {"type": "move", "move": "e4d5"}
    assert GreedyBot().on_turn(state) == {"type": "move", "move": "e4d5"}
    back_rank = {"fen": "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "moves": []}
    assert SearchBot().on_turn(back_rank) == {"type": "move", "move": "a1a8"}
    assert GreedyBot().on_turn(back_rank) == {"type": "move", "move": "a1a8"}


@pytest.mark.slow  # over 30 s on two busy cores: out of make test-fast
def test_search_bot_beats_the_greedy_bot() -> None:
    record = untimed_match("chess", (SearchBot, "search"), (GreedyBot, "greedy"), seed=0)
    assert record.platform_error is None
    assert record.seats[0].score > record.seats[1].score

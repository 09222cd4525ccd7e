"""The chess starter agent runs unchanged (standard library only) and the house bots are sound."""

from __future__ import annotations

import itertools

import pytest

from games.chess.bots import GreedyBot, SearchBot, board_from_state
from games.core import bot_clock
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


# A middle game with many captures and checks: a deep search here takes minutes.
MIDDLE_GAME = {
    "fen": "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 0 9",
    "moves": [],
}


class _Unbounded(SearchBot):
    """The search bot with no node budget to speak of: only its deadline can stop it."""

    NODE_BUDGET = 10**9
    MAX_DEPTH = 30


def test_the_search_bot_stops_at_its_deadline_and_plays_its_last_complete_depth(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A clock that moves 1 ms each time it is read: the cut falls at the same node every run.
    ticks = itertools.count()
    monkeypatch.setattr(bot_clock.time, "perf_counter", lambda: next(ticks) / 1000)
    bot = _Unbounded()
    bot.on_match_start({"timed": True, "turn_timeout_s": 2.0})  # 0.5 s: about 500 nodes
    move = bot.on_turn(MIDDLE_GAME)["move"]
    search = bot.last_search
    assert search is not None and search.cut_by_clock
    assert 1 <= search.depth_completed < _Unbounded.MAX_DEPTH
    assert search.nodes < 1000
    # The move is the one a search limited to the completed depth plays, with no clock at all.
    monkeypatch.undo()
    limited = type("Limited", (_Unbounded,), {"MAX_DEPTH": search.depth_completed})()
    limited.on_match_start({"timed": False, "turn_timeout_s": None})
    assert limited.on_turn(MIDDLE_GAME)["move"] == move
    assert limited.last_search is not None and not limited.last_search.cut_by_clock


def test_the_search_bot_answers_on_the_real_clock_whatever_its_node_budget() -> None:
    bot = _Unbounded()
    bot.on_match_start({"timed": True, "turn_timeout_s": 0.4})  # a 0.1 s deadline
    move = bot.on_turn(MIDDLE_GAME)["move"]
    assert move in {m.uci() for m in board_from_state(MIDDLE_GAME).legal_moves}
    assert bot.last_search is not None and bot.last_search.cut_by_clock


def test_untimed_matches_have_no_deadline_so_a_seed_replays_anywhere() -> None:
    bot = SearchBot()
    bot.on_match_start({"timed": False, "turn_timeout_s": None})
    assert bot.clock.deadline() is None
    bot.on_turn(MIDDLE_GAME)
    assert bot.last_search is not None and not bot.last_search.cut_by_clock

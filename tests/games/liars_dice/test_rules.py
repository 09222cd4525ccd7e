"""Liar's dice: each rule line of its rules.md, and what agents see."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.core import ActionParseError, IllegalActionError
from games.liars_dice.game import LiarsDiceGame
from tests.games.helpers import house_match, new_game, round_state, strict_parser


def _game(seed: int = 0, **config: int) -> LiarsDiceGame:
    return new_game(LiarsDiceGame, seed, **config)


def _bid(game: LiarsDiceGame, q: int, f: int) -> None:
    game.step({"action_type": "bid", "quantity": q, "face": f})


def test_seat_zero_opens_round_one_and_every_die_starts_in_play() -> None:
    game = _game()
    p0, p1 = game.players
    assert game.get_current_player() == p0
    view = round_state(game, p0)
    assert len(view["your_dice"]) == 5
    assert view["your_dice_count"] == view["opponent_dice_count"] == 5
    assert view["total_dice"] == 10
    assert view["current_bid"] is None
    assert {"type": "challenge"} not in view["available_actions"]


def test_wild_ones_count_for_the_bid_face_so_the_challenger_loses() -> None:
    game = _game()
    p0, p1 = game.players
    game.hands = {p0: [1, 1, 4, 5, 6], p1: [1, 4, 2, 2, 3]}
    _bid(game, 5, 4)  # two 4s and three 1s: exactly five
    info, _ = game.step({"action_type": "challenge"})
    assert info["challenge"]["count"] == 5
    assert info["challenge"]["loser"] == p1
    assert game.dice_count == {p0: 5, p1: 4}


def test_a_bid_above_the_count_costs_the_bidder_a_die() -> None:
    game = _game()
    p0, p1 = game.players
    game.hands = {p0: [1, 2, 4, 5, 6], p1: [3, 4, 2, 2, 3]}
    _bid(game, 4, 4)  # only 1 + two 4s = 3
    game.step({"action_type": "challenge"})
    assert game.dice_count == {p0: 4, p1: 5}


def test_the_challenge_loser_opens_the_next_bidding_with_fresh_dice() -> None:
    game = _game()
    p0, p1 = game.players
    game.hands = {p0: [2, 2, 2, 2, 2], p1: [3, 3, 3, 3, 3]}
    _bid(game, 3, 6)
    _bid(game, 4, 6)  # p1 bids a lie
    game.step({"action_type": "challenge"})  # p0 challenges and wins
    assert game.dice_count[p1] == 4
    assert game.get_current_player() == p1
    assert len(game.hands[p1]) == 4 and len(game.hands[p0]) == 5
    assert game.get_public_state()["current_bid"] is None
    assert len(game.get_public_state()["reveals"]) == 1


@pytest.mark.parametrize(("q", "f"), [(3, 4), (2, 6), (3, 5)])
def test_a_bid_that_does_not_raise_is_refused_with_the_rule(q: int, f: int) -> None:
    game = _game()
    _bid(game, 3, 5)
    with pytest.raises(IllegalActionError, match=r"does not raise the standing bid 3×5"):
        _bid(game, q, f)


@pytest.mark.parametrize(("q", "f"), [(4, 2), (3, 6)])
def test_a_higher_quantity_or_the_same_quantity_and_a_higher_face_raises(q: int, f: int) -> None:
    game = _game()
    _bid(game, 3, 5)
    _bid(game, q, f)
    assert game.get_public_state()["current_bid"]["quantity"] == q


def test_faces_and_quantities_out_of_range_are_refused() -> None:
    game = _game()
    with pytest.raises(IllegalActionError, match="1s are wild"):
        _bid(game, 2, 1)
    with pytest.raises(IllegalActionError, match="1 to 10"):
        _bid(game, 11, 6)
    with pytest.raises(IllegalActionError, match="1 to 10"):
        _bid(game, 0, 6)


def test_a_challenge_without_a_standing_bid_is_refused() -> None:
    game = _game()
    with pytest.raises(IllegalActionError, match="no standing bid"):
        game.step({"action_type": "challenge"})


def test_the_round_winner_scores_the_dice_they_still_hold() -> None:
    game = _game(dice_per_player=2)
    p0, p1 = game.players
    for _ in range(2):  # p1 lies twice and loses both dice
        game.hands = {p0: [2] * game.dice_count[p0], p1: [3] * game.dice_count[p1]}
        if game.get_current_player() == p0:
            _bid(game, 1, 2)
        _bid(game, 4, 6) if game.dice_count[p1] == 2 else _bid(game, 3, 6)
        info, _ = game.step({"action_type": "challenge"})
    result = info["round_result"]
    assert result[p0]["your_points"] == 2 and result[p0]["winner"] == "you"
    assert result[p1]["your_points"] == 0 and result[p1]["opponent_points"] == 2
    assert game.get_scores() == {p0: 2.0, p1: 0.0}
    assert game.get_round() == 2
    assert game.get_current_player() == p1  # the opener alternates by round
    assert game.dice_count == {p0: 2, p1: 2}
    assert round_state(game, p0)["history"][0]["your_points"] == 2


def test_the_parser_takes_type_or_action_type_and_explains_bad_numbers() -> None:
    game = _game()
    parser = strict_parser("liars-dice")
    valid = game.get_available_actions()
    assert parser.parse({"type": "bid", "quantity": 2, "face": 3}, valid) == {
        "action_type": "bid",
        "quantity": 2,
        "face": 3,
    }
    assert parser.parse({"action_type": "bid", "quantity": 2, "face": 3}, valid)["face"] == 3
    with pytest.raises(ActionParseError, match="whole number"):
        parser.parse({"type": "bid", "quantity": "two", "face": 3}, valid)
    with pytest.raises(ActionParseError, match='needs "face"'):
        parser.parse({"type": "bid", "quantity": 2}, valid)
    with pytest.raises(ActionParseError, match="not legal now"):
        parser.parse({"type": "challenge"}, valid)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.lists(st.integers(0, 10_000), max_size=200))
def test_scores_are_bounded_and_views_hide_the_other_hand(seed: int, moves: list[int]) -> None:
    game = _game(seed, rounds=3)
    p0, p1 = game.players
    for pick in moves:
        if game.is_over():
            break
        for pid in (p0, p1):
            other = game.opponent_of(pid)
            view = round_state(game, pid)
            assert view["your_dice"] == game.hands[pid]
            # the other seat's current dice must not reach this view: change them, same view
            real = game.hands[other]
            game.hands[other] = [6 if d != 6 else 2 for d in real]
            assert round_state(game, pid) == view
            game.hands[other] = real
        valid = game.get_available_actions()
        game.step(valid[pick % len(valid)])
    for score in game.get_scores().values():
        assert 0 <= score <= 5 * 3
    total = sum(game.get_scores().values())
    finished = len(game.finished)
    assert 1 * finished <= total <= 5 * finished


def test_the_probability_bot_beats_the_random_bot() -> None:
    wins = 0
    for seed in range(30):
        record = house_match("liars-dice", "probability", "random", seed=seed)
        wins += record.winner == 0
    assert wins >= 24


def test_defaults_are_ten_rounds_of_five_dice_each() -> None:
    game = _game()
    assert game.total_rounds == 10 and game.config.dice_per_player == 5
    record = house_match("liars-dice", "probability", "random", seed=1)
    assert record.rounds_played == 10
    for entry in record.rounds:
        points = [r["your_points"] for r in entry["result"].values()]
        assert sorted(points)[0] == 0 and 1 <= sorted(points)[1] <= 5

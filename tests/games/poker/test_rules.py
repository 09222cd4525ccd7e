"""Poker rules as rules.md states them: order of action, raise arithmetic, showdowns, chips."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from treys import Card, Evaluator

from games.core import ActionParseError, IllegalActionError
from games.poker import PokerActionParser, PokerConfig, PokerGame, PokerStateAdapter
from games.poker.game import Deal
from tests.games.helpers import house_match, untimed_match


class RiggedPokerGame(PokerGame):
    """A PokerGame whose hands deal the cards a test chooses (by hand number), else shuffled."""

    rigged: dict[int, Deal] = {}

    def deal(self, hand_number: int) -> Deal:
        """The chosen deal for this hand, or the seeded one."""
        chosen = self.rigged.get(hand_number)
        return chosen if chosen is not None else super().deal(hand_number)


def rigged_game(deals: dict[int, Deal], **config: Any) -> RiggedPokerGame:
    game_class = type("Rigged", (RiggedPokerGame,), {"rigged": deals})
    return game_class(["p0", "p1"], PokerConfig(**config), seed=0)


def new_game(seed: int = 0, **config: Any) -> PokerGame:
    return PokerGame(["p0", "p1"], PokerConfig(**config), seed=seed)


FOLD: dict[str, Any] = {"action_type": "fold"}
CHECK: dict[str, Any] = {"action_type": "check"}
CALL: dict[str, Any] = {"action_type": "call"}
ALL_IN: dict[str, Any] = {"action_type": "all_in"}


def raise_to(amount: Any) -> dict[str, Any]:
    return {"action_type": "raise", "amount": amount}


def play(game: PokerGame, *actions: dict[str, Any]) -> dict[str, Any]:
    """Apply ``actions``; return the last info."""
    info: dict[str, Any] = {}
    for action in actions:
        info, _ = game.step(action)
    return info


# --- order of action ----------------------------------------------------------------------------


def test_button_posts_small_blind_and_acts_first_preflop_big_blind_first_after() -> None:
    game = new_game()
    state = game.get_public_state()
    assert state["button"] == "p0" and state["street_bets"] == {"p0": 50, "p1": 100}
    assert game.get_current_player() == "p0"  # the button, preflop
    play(game, CALL)
    assert game.get_current_player() == "p1"  # the big blind has the option
    play(game, CHECK)
    assert game.street == "flop" and len(game.get_public_state()["board"]) == 3
    assert game.get_current_player() == "p1"  # the big blind first after the flop
    play(game, CHECK)
    assert game.get_current_player() == "p0"
    play(game, CHECK)
    assert game.street == "turn" and game.get_current_player() == "p1"
    play(game, CHECK, CHECK)
    assert game.street == "river" and game.get_current_player() == "p1"
    info = play(game, CHECK, CHECK)
    assert info["round_result"]["p0"]["showdown"] is True
    # Hand 2: the button moves to p1, who now posts the small blind and acts first.
    assert game.hand_number == 2 and game.button == "p1"
    assert game.get_public_state()["street_bets"] == {"p0": 100, "p1": 50}
    assert game.get_current_player() == "p1"


def test_a_raise_reopens_the_action_and_a_call_closes_the_street() -> None:
    game = new_game()
    play(game, raise_to(300))
    assert game.get_current_player() == "p1"
    play(game, raise_to(900))
    assert game.get_current_player() == "p0" and game.street == "preflop"
    play(game, CALL)
    assert game.street == "flop" and game.get_public_state()["pot"] == 1800


# --- raise arithmetic ---------------------------------------------------------------------------


def limits(game: PokerGame) -> tuple[int, int]:
    (template,) = [a for a in game.get_available_actions() if a["action_type"] == "raise"]
    return template["min"], template["max"]


def test_min_raise_arithmetic_across_streets() -> None:
    game = new_game()
    assert limits(game) == (200, 20_000)  # the big blind is the bet to raise: +100
    play(game, raise_to(300))  # a raise of 200
    assert limits(game) == (500, 20_000)
    play(game, raise_to(1000))  # a raise of 700
    assert limits(game) == (1700, 20_000)
    play(game, CALL)  # flop: each has 1000 in, 19,000 behind
    assert limits(game) == (100, 19_000)  # a new street: the minimum bet is the big blind
    play(game, raise_to(250))  # a bet of 250
    assert limits(game) == (500, 19_000)
    play(game, raise_to(600))  # a raise of 350
    assert limits(game) == (950, 19_000)
    with pytest.raises(IllegalActionError, match=r"too small.*at least 350.*600"):
        game.step(raise_to(900))
    play(game, CALL)  # turn
    assert game.street == "turn" and limits(game) == (100, 18_400)


def test_all_in_for_less_than_a_raise_is_allowed_and_does_not_reopen_raising() -> None:
    game = new_game(starting_stack=1000)
    play(game, raise_to(600))  # a raise of 500: a full re-raise would be to 1100
    assert limits(game) == (1000, 1000)  # the big blind has only 1000: all-in for less
    with pytest.raises(IllegalActionError, match="too small"):
        game.step(raise_to(900))
    play(game, raise_to(1000))
    assert game.stacks["p1"] == 0
    assert [a["action_type"] for a in game.get_available_actions()] == ["fold", "call"]
    info = play(game, CALL)
    assert info["round_result"]["p0"]["pot"] == 2000
    assert len(info["round_result"]["p0"]["board"]) == 5  # the board is run out


def test_all_in_action_puts_every_chip_in() -> None:
    game = new_game()
    play(game, ALL_IN)
    assert game.stacks["p0"] == 0 and game.current_bet == 20_000
    info = play(game, CALL)
    result = info["round_result"]
    assert abs(result["p0"]["your_points"]) in (0, 20_000)
    assert result["p0"]["your_stack"] + result["p0"]["opponent_stack"] == 40_000


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        (raise_to(150), "legal range is raise to 200..20000"),
        (raise_to(20_001), "more than you have"),
        (raise_to("lots"), 'a raise needs "amount": a whole number'),
        (raise_to(250.5), "whole number"),
        ({"action_type": "raise"}, "raise to"),
        (CHECK, "you owe 50 to call"),
    ],
)
def test_invalid_bets_are_refused_with_the_legal_range(action: dict[str, Any], reason: str) -> None:
    game = new_game()
    before = game.get_public_state()
    with pytest.raises(IllegalActionError) as caught:
        game.step(action)
    assert reason in str(caught.value)
    assert game.get_public_state() == before


def test_call_with_nothing_owed_is_a_check() -> None:
    game = new_game()
    play(game, CALL)  # the button limps; the big blind owes nothing
    before = game.get_public_state()["street"]
    info = play(game, CALL)
    assert info["action"]["type"] == "check"
    assert before == "preflop" and game.street == "flop"
    assert game.stacks == {"p0": 19_900, "p1": 19_900}


def test_all_in_when_raising_is_closed_is_a_call() -> None:
    game = new_game()
    play(game, ALL_IN)  # the button shoves: the big blind cannot raise any more
    assert game.get_public_state()["limits"]["p1"]["min_raise_to"] is None
    info = play(game, ALL_IN)
    assert game.finished[-1]["actions"][-1] == {
        "player": "p1",
        "street": "preflop",
        "type": "call",
        "amount": 19_900,
    }
    assert info["round_result"]["p0"]["showdown"] is True


@pytest.mark.parametrize(("amount", "owed"), [(10, 50), (100, 50), (49.0, 50), ("50", 50)])
def test_an_explicit_call_amount_must_be_what_is_owed(amount: Any, owed: int) -> None:
    game = new_game()
    before = game.get_public_state()
    with pytest.raises(IllegalActionError, match=f"you owe {owed} to call"):
        game.step({"action_type": "call", "amount": amount})
    assert game.get_public_state() == before
    game.step({"action_type": "call", "amount": 50.0})  # the right amount, as a float, is fine
    assert game.stacks["p0"] == 19_900


def test_a_call_amount_with_nothing_owed_must_be_zero() -> None:
    game = new_game()
    play(game, CALL)
    with pytest.raises(IllegalActionError, match="you owe nothing: check"):
        game.step({"action_type": "call", "amount": 100})
    assert play(game, {"action_type": "call", "amount": 0})["action"]["type"] == "check"


def test_parser_maps_bet_and_all_in_spellings_and_lets_the_game_explain() -> None:
    game = new_game()
    parser = PokerActionParser(fallback_to_random=False)
    valid = game.get_available_actions()
    assert parser.parse({"type": "bet", "amount": 400}, valid) == raise_to(400)
    assert parser.parse({"type": "raise", "raise_to": 400}, valid) == raise_to(400)
    assert parser.parse({"type": "All-In"}, valid) == {"action_type": "all_in", "amount": 20_000}
    assert parser.parse({"type": "call", "amount": 50}, valid) == {
        "action_type": "call",
        "amount": 50,
    }
    under_call = parser.parse({"type": "call", "amount": 10}, valid)
    with pytest.raises(IllegalActionError, match="you owe 50 to call"):
        game.step(under_call)
    check = parser.parse({"type": "check"}, valid)  # not listed: the game says why
    with pytest.raises(IllegalActionError, match="you owe 50"):
        game.step(check)
    with pytest.raises(ActionParseError, match="not legal now"):
        parser.parse({"type": "limp"}, valid)


def test_parser_normalises_call_to_check_and_all_in_to_call() -> None:
    game = new_game()
    parser = PokerActionParser(fallback_to_random=False)
    play(game, CALL)
    assert parser.parse({"type": "call"}, game.get_available_actions()) == CHECK
    game = new_game()
    play(game, ALL_IN)
    assert parser.parse({"type": "all-in"}, game.get_available_actions()) == {
        "action_type": "call",
        "amount": 19_900,
    }


class CallOnly:
    """Calls every time, whatever is owed: what a newcomer's first agent often does."""

    GAME = "poker"

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"type": "call"}


class ShoveOnly:
    """Goes all-in every time."""

    GAME = "poker"

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"type": "all_in"}


def test_call_only_agents_are_never_refused_and_the_log_shows_the_checks() -> None:
    record = untimed_match("poker", (CallOnly, "a"), (CallOnly, "b"), seed=3, config={"hands": 6})
    turns = [e for e in record.log if e.get("method") == "on_turn"]
    assert not [e for e in turns if e.get("illegal")]
    assert not [e for e in record.log if e.get("method") == "referee"]
    assert {e["reply"]["type"] for e in turns} == {"call"}
    assert {"call", "check"} <= {e["action"]["type"] for e in turns}
    # Nobody folds: every hand is shown down.
    assert all(r["result"]["p0"]["showdown"] for r in record.rounds)


def test_two_shovers_call_each_other_instead_of_folding() -> None:
    record = untimed_match("poker", (ShoveOnly, "a"), (ShoveOnly, "b"), seed=3, config={"hands": 4})
    turns = [e for e in record.log if e.get("method") == "on_turn"]
    assert not [e for e in turns if e.get("illegal")]
    assert [e["action"]["type"] for e in turns] == ["all_in", "call"] * 4
    for entry in record.rounds:
        result = entry["result"]["p0"]
        assert result["showdown"] and result["pot"] == 40_000 and result["returned"] == 0


# --- showdowns ----------------------------------------------------------------------------------


def test_split_pot_returns_each_players_own_chips() -> None:
    royal = ("As", "Ks", "Qs", "Js", "Ts")
    game = rigged_game({1: Deal(("2c", "3d"), ("4h", "5c"), royal)})
    play(game, raise_to(500), CALL)  # preflop
    play(game, raise_to(1000), CALL)  # flop
    info = play(game, CHECK, CHECK, CHECK, CHECK)
    result = info["round_result"]
    assert result["p0"]["result"] == result["p1"]["result"] == "split"
    assert result["p0"]["your_points"] == 0 and result["p0"]["your_stack"] == 20_000
    assert result["p0"]["your_hand"] == "Royal Flush"
    assert game.get_scores() == {"p0": 0.0, "p1": 0.0}


def test_uncalled_chips_go_back_and_a_fold_wins_what_the_folder_put_in() -> None:
    game = new_game()
    info = play(game, raise_to(300), FOLD)
    result = info["round_result"]
    assert result["p0"]["your_points"] == 100 and result["p1"]["your_points"] == -100
    assert result["p0"]["showdown"] is False and result["p1"]["opponent_cards"] is None
    assert result["p0"]["pot"] == 200 and result["p0"]["returned"] == 200
    assert result["p0"]["returned_to"] == "you" and result["p1"]["returned_to"] == "opponent"


def test_round_result_reports_the_contested_pot_and_the_returned_shove_apart() -> None:
    game = new_game()
    info = play(game, ALL_IN, FOLD)  # the button shoves 20,000, the big blind folds
    for seat in ("p0", "p1"):
        result = info["round_result"][seat]
        assert (result["pot"], result["returned"]) == (200, 19_900)
    assert game.finished[-1]["pot"] == 200 and game.finished[-1]["returned_to"] == "p0"


def test_an_all_in_for_less_returns_the_uncalled_part_at_showdown() -> None:
    game = new_game()
    play(game, CALL, CHECK)  # to the flop, 100 each
    game.stacks["p1"] = 500  # the big blind is short: it can only call 500 more
    info = play(game, CHECK, raise_to(2_000), CALL)  # the big blind acts first after the flop
    result = info["round_result"]["p0"]
    assert result["showdown"] is True
    assert result["pot"] == 1_200 and result["returned"] == 1_500


def test_every_showdown_agrees_with_treys() -> None:
    hands = 300
    game = new_game(seed=11, hands=hands, duplicate=False)
    evaluator = Evaluator()
    showdowns = 0
    while not game.is_over():
        info = play(game, ALL_IN, CALL)
        record = game.finished[-1]
        board = [Card.new(c) for c in record["board"]]
        ranks = {
            p: evaluator.evaluate(board, [Card.new(c) for c in record["cards"][p]])
            for p in ("p0", "p1")
        }
        expected = (
            0 if ranks["p0"] == ranks["p1"] else (20_000 if ranks["p0"] < ranks["p1"] else -20_000)
        )
        assert record["net"]["p0"] == expected, record
        assert info["round_result"]["p0"]["your_points"] == expected
        showdowns += 1
    assert showdowns == hands


# --- the match ----------------------------------------------------------------------------------


def test_duplicate_dealing_repeats_cards_with_seats_swapped() -> None:
    game = new_game(seed=5, hands=4)
    first = {p: tuple(game.hole[p]) for p in game.players}
    play(game, FOLD)  # hand 1: p0 (button) folds
    assert game.hand_number == 2 and game.button == "p1"
    assert tuple(game.hole["p1"]) == first["p0"] and tuple(game.hole["p0"]) == first["p1"]
    board_2 = game.full_board
    play(game, FOLD)
    assert game.full_board != board_2 or tuple(game.hole["p0"]) != first["p0"]  # hand 3 is new
    plain = new_game(seed=5, hands=4, duplicate=False)
    hole_1 = dict(plain.hole)
    play(plain, FOLD)
    assert tuple(plain.hole["p1"]) != tuple(hole_1["p0"])


def test_score_is_net_chips_and_stats_report_bb_per_100() -> None:
    game = new_game(hands=2)
    play(game, raise_to(300), FOLD)  # p0 wins 100
    play(game, FOLD)  # p1 (button) folds its small blind: p0 wins 50
    assert game.is_over()
    assert game.get_scores() == {"p0": 150.0, "p1": -150.0}
    assert game.get_match_stats() == {"bb_per_100": [75.0, -75.0], "hands_played": 2}
    assert game.get_winner() == "p0"


def test_the_opponents_cards_never_reach_a_seats_view() -> None:
    game = new_game(seed=2)
    adapter = PokerStateAdapter()
    play(game, CALL)
    view = adapter.to_round_state(
        game.get_public_state(), game.get_private_state("p1"), "p1", game.get_available_actions()
    )
    text = json.dumps(view)
    assert all(card not in text for card in game.hole["p0"] if card not in game.full_board)
    assert view["your_cards"] == list(game.hole["p1"])
    assert view["button"] == "opponent" and view["to_call"] == 0
    assert view["min_raise_to"] == 200 and view["max_raise_to"] == 20_000
    assert [a["player"] for a in view["actions"]] == ["opponent", "you", "opponent"]


# --- chip conservation --------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_chips_are_conserved_over_random_legal_play(data: st.DataObject) -> None:
    seed = data.draw(st.integers(0, 10_000), label="seed")
    game = new_game(seed=seed, hands=3)
    while not game.is_over():
        for p in game.players:
            assert game.stacks[p] + game.contributed[p] == 20_000
        valid = game.get_available_actions()
        template = data.draw(st.sampled_from(valid))
        action = {k: v for k, v in template.items() if k not in ("min", "max")}
        if template["action_type"] == "raise":
            action["amount"] = data.draw(st.integers(template["min"], template["max"]))
        info, _ = game.step(action)
        if "round_result" in info:
            result = info["round_result"]["p0"]
            assert result["your_stack"] + result["opponent_stack"] == 40_000
            assert result["your_points"] + result["opponent_points"] == 0
            assert 0 <= result["your_stack"] <= 40_000
    assert sum(game.get_scores().values()) == 0


# --- through the referee ------------------------------------------------------------------------


class BadBettor:
    """Always bets one chip: an invalid bet every time."""

    GAME = "poker"

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"type": "raise", "amount": 1}


class Caller:
    GAME = "poker"

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"type": "check"} if state["to_call"] == 0 else {"type": "call"}


def test_the_fourth_invalid_bet_folds_the_hand_and_the_match_goes_on() -> None:
    record = untimed_match(
        "poker", (BadBettor, "bad"), (Caller, "caller"), seed=1, config={"hands": 4}
    )
    bad, caller = record.seats
    assert str(bad.reason) == "normal" and str(bad.outcome) == "loss"
    assert record.rounds_played == 4
    folds = [e for e in record.log if e.get("method") == "referee"]
    assert len(folds) == 4 and all(e["action"] == {"type": "fold"} for e in folds)
    refused = [e for e in record.log if e.get("method") == "on_turn" and e["seat"] == 0]
    assert "legal range is raise to" in refused[1]["payload"]["error"]
    # Folding as the button costs 50, as the big blind 100: two hands of each.
    assert bad.score == -300 and caller.score == 300
    assert record.stats == {"bb_per_100": [-75.0, 75.0], "hands_played": 4}


def test_house_bots_finish_a_short_match() -> None:
    record = house_match("poker", "raise-happy", "hand-strength", config={"hands": 6})
    assert record.platform_error is None and record.rounds_played == 6
    assert sum(s.score for s in record.seats) == 0

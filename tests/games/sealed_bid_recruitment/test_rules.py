"""Sealed-bid recruitment: budgets, ties, payment, the schedule, and what each school sees."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.core import ActionParseError, IllegalActionError
from games.sealed_bid_recruitment.game import SealedBidRecruitmentGame
from tests.games.helpers import house_match, new_game, play_both, round_state, say, strict_parser


def _game(seed: int = 0, **config: object) -> SealedBidRecruitmentGame:
    return new_game(SealedBidRecruitmentGame, seed, **config)


def _pitch(game: SealedBidRecruitmentGame) -> None:
    say(game, 4, "come play for us")


def _offers(game: SealedBidRecruitmentGame, first: int, second: int) -> dict:
    """Offers in the round's speaking order (the first speaker offers first)."""
    _pitch(game)
    offers = ({"action_type": "offer", "amount": amount} for amount in (first, second))
    return play_both(game, *offers)["round_result"]


def test_values_are_a_seeded_order_of_the_five_and_announced() -> None:
    game = _game(3)
    assert sorted(game.values) == [60, 80, 100, 120, 140]
    assert game.get_match_info(game.players[0])["recruit_values"] == game.values
    assert {tuple(_game(s).values) for s in range(30)} != {tuple(game.values)}
    assert game.get_public_state()["pot"] == game.values[0]
    assert all(0 <= f <= 40 for f in game.fits.values())


def test_higher_offer_plus_fit_signs_and_only_the_winner_pays() -> None:
    game = _game()
    p0, p1 = game.players
    game.fits = {p0: 10, p1: 30}
    result = _offers(game, 50, 40)  # 60 against 70: p1 signs
    value = game.values[0]
    assert result[p1]["winner"] == "you" and result[p1]["your_points"] == value
    assert result[p0]["opponent_fit"] == 30 and result[p0]["opponent_offer"] == 40
    assert game.budgets == {p0: 300, p1: 260}
    assert game.get_scores() == {p0: 0, p1: value}


def test_a_tie_goes_to_the_higher_fit() -> None:
    game = _game()
    p0, p1 = game.players
    game.fits = {p0: 30, p1: 10}
    result = _offers(game, 50, 70)  # 80 each
    assert result[p0]["winner"] == "you"
    assert game.budgets[p0] == 250 and game.budgets[p1] == 300


def test_a_complete_tie_goes_to_the_rounds_second_speaker() -> None:
    game = _game()
    p0, p1 = game.players
    game.fits = {p0: 20, p1: 20}
    assert _offers(game, 60, 60)[p1]["winner"] == "you"  # round 1: p0 speaks first
    assert game.get_current_player() == p1  # round 2: p1 speaks first
    game.fits = {p0: 5, p1: 5}
    assert _offers(game, 10, 10)[p0]["winner"] == "you"


def test_offers_beyond_the_budget_or_negative_are_refused() -> None:
    game = _game()
    _pitch(game)
    with pytest.raises(IllegalActionError, match="outside 0..300"):
        game.step({"action_type": "offer", "amount": 301})
    with pytest.raises(IllegalActionError, match="outside 0..300"):
        game.step({"action_type": "offer", "amount": -1})
    with pytest.raises(IllegalActionError, match="whole number"):
        game.step({"action_type": "offer", "amount": 12.5})
    parser = strict_parser("sealed-bid-recruitment")
    valid = game.get_available_actions()
    with pytest.raises(ActionParseError, match="remaining budget is 300"):
        parser.parse({"type": "offer", "amount": 400}, valid)
    assert parser.parse({"type": "offer", "amount": 300}, valid) == {
        "action_type": "offer",
        "amount": 300,
    }


def test_the_pitch_alternates_and_long_messages_are_refused() -> None:
    game = _game()
    p0, p1 = game.players
    with pytest.raises(IllegalActionError, match="limit is 500"):
        game.step({"action_type": "message", "text": "x" * 501})
    assert say(game, 4) == [p0, p1, p0, p1]
    with pytest.raises(IllegalActionError, match="offer phase"):
        game.step({"action_type": "message", "text": "one more"})


def test_the_second_offer_never_sees_the_first() -> None:
    views = []
    for amount in (0, 300):
        game = _game()
        _pitch(game)
        game.step({"action_type": "offer", "amount": amount})
        views.append(round_state(game, game.get_current_player()))
    assert views[0] == views[1]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), picks=st.lists(st.integers(0, 400), max_size=40))
def test_budgets_never_go_negative_and_scores_stay_bounded(seed: int, picks: list[int]) -> None:
    game = _game(seed)
    for pick in picks:
        if game.is_over():
            break
        for pid in game.players:
            other = game.opponent_of(pid)
            view = round_state(game, pid)
            assert view["your_fit"] == game.fits[pid]
            real = game.fits[other]
            game.fits[other] = 40 - real if real != 20 else 0  # the other fit must not show
            assert round_state(game, pid) == view
            game.fits[other] = real
        if game.get_public_state()["phase"] == "pitch":
            game.step({"action_type": "message", "text": str(pick)})
        else:
            budget = game.budgets[game.get_current_player()]
            game.step({"action_type": "offer", "amount": pick % (budget + 1)})
        assert all(b >= 0 for b in game.budgets.values())
    assert sum(game.get_scores().values()) == sum(r["value"] for r in game.finished)
    for score in game.get_scores().values():
        assert 0 <= score <= 500


def test_the_shading_bot_beats_the_trivial_bots() -> None:
    for rival in ("spend-everything", "proportional"):
        wins = 0
        for seed in range(10):
            record = house_match("sealed-bid-recruitment", "shading", rival, seed=seed)
            wins += record.winner == 0
        assert wins >= 8, rival


def test_defaults_are_five_recruits_and_a_season_budget_of_300() -> None:
    game = _game()
    view = round_state(game, game.players[0])
    assert game.total_rounds == 5
    assert view["your_budget"] == view["opponent_budget"] == 300
    assert view["remaining_values"] == game.values and view["pot"] == game.values[0]
    assert set(view["recruit"]) == {"name", "position", "priorities", "concerns", "value"}
    info = game.get_round_info(game.players[0])
    assert info["round"] == 1 and info["pot"] == game.values[0] and "your_fit" in info


def test_unknown_config_keys_are_refused() -> None:
    with pytest.raises(ValueError, match="extra"):
        _game(bogus=1)

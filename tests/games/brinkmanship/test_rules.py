"""Brinkmanship: every payoff cell, war at L >= K, the negotiation order, and what agents see."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.brinkmanship.bots import Payoffs, equilibrium_stand_chances
from games.brinkmanship.game import BrinkmanshipGame
from games.core import ActionParseError, IllegalActionError
from tests.games.helpers import house_match, new_game, play_both, round_state, say, strict_parser


def _game(seed: int = 0, **config: int) -> BrinkmanshipGame:
    return new_game(BrinkmanshipGame, seed, **config)


def _talk(game: BrinkmanshipGame) -> None:
    say(game, 2, "hm")


def _commit(game: BrinkmanshipGame, first: str, second: str) -> dict:
    _talk(game)
    commits = ({"action_type": "commit", "choice": choice} for choice in (first, second))
    return play_both(game, *commits)


@pytest.mark.parametrize("level", [0, 1, 2])
@pytest.mark.parametrize(
    ("first", "second", "points"),
    [
        ("yield", "yield", (50, 50)),
        ("stand", "yield", (100, 0)),
        ("yield", "stand", (0, 100)),
    ],
)
def test_payoff_cells_after_level_escalations(
    first: str, second: str, points: tuple[int, int], level: int
) -> None:
    game = _game()
    game.threshold = 5
    p0, p1 = game.players
    for _ in range(level):
        assert "round_result" not in _commit(game, "stand", "stand")
    assert game.level == level and game.step_no == level + 1
    info = _commit(game, first, second)
    result = info["round_result"]
    expected = (points[0] - 10 * level, points[1] - 10 * level)
    assert (result[p0]["your_points"], result[p1]["your_points"]) == expected
    assert result[p0]["threshold"] == 5 and result[p1]["escalation_level"] == level
    assert game.get_scores() == {p0: expected[0], p1: expected[1]}


@pytest.mark.parametrize("threshold", [1, 2, 3, 4, 5])
def test_war_comes_exactly_when_the_level_reaches_the_threshold(threshold: int) -> None:
    game = _game()
    game.threshold = threshold
    p0, p1 = game.players
    for level in range(1, threshold + 1):
        info = _commit(game, "stand", "stand")
        if level < threshold:
            assert "round_result" not in info
    result = info["round_result"]
    assert result[p0]["outcome"] == "war" and result[p0]["your_points"] == -100
    assert result[p1]["opponent_points"] == -100 and result[p1]["escalation_level"] == threshold
    assert game.get_round() == 2


def test_thresholds_are_drawn_from_one_to_five() -> None:
    seen = {_game(seed).threshold for seed in range(200)}
    assert seen == {1, 2, 3, 4, 5}


def test_one_message_each_per_step_and_the_first_speaker_alternates_by_crisis() -> None:
    game = _game()
    p0, p1 = game.players
    assert say(game, 2, "x") == [p0, p1]
    assert game.get_public_state()["phase"] == "commit"
    with pytest.raises(IllegalActionError, match="commit phase"):
        game.step({"action_type": "message", "text": "more"})
    game.step({"action_type": "commit", "choice": "yield"})
    game.step({"action_type": "commit", "choice": "yield"})
    assert game.get_round() == 2 and game.get_current_player() == p1
    assert game.get_public_state()["messages"] == []


def test_over_long_messages_are_refused_with_the_cap() -> None:
    game = _game()
    with pytest.raises(IllegalActionError, match="limit is 280"):
        game.step({"action_type": "message", "text": "x" * 281})
    parser = strict_parser("brinkmanship")
    with pytest.raises(ActionParseError, match="limit is 280"):
        parser.parse({"type": "message", "text": "x" * 281}, game.get_available_actions())
    _talk(game)
    assert parser.parse({"type": "commit", "choice": " Stand "}, game.get_available_actions()) == {
        "action_type": "commit",
        "choice": "stand",
    }


def test_the_second_chooser_does_not_see_the_first_choice() -> None:
    views = []
    for choice in ("stand", "yield"):
        game = _game()
        _talk(game)
        game.step({"action_type": "commit", "choice": choice})
        views.append(round_state(game, game.get_current_player()))
    assert views[0] == views[1]
    assert "threshold" not in views[0]


def test_equilibrium_stands_about_three_times_in_four_at_level_zero() -> None:
    chances = equilibrium_stand_chances(Payoffs())
    assert 0.70 < chances[0] < 0.78
    assert chances[-1] < chances[0]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), picks=st.lists(st.booleans(), max_size=120))
def test_scores_stay_within_the_payoff_bounds(seed: int, picks: list[bool]) -> None:
    game = _game(seed)
    for stand in picks:
        if game.is_over():
            break
        if game.get_public_state()["phase"] == "negotiate":
            game.step({"action_type": "message", "text": ""})
        else:
            game.step({"action_type": "commit", "choice": "stand" if stand else "yield"})
    crises = len(game.finished)
    for score in game.get_scores().values():
        assert -100 * crises <= score <= 100 * crises
    for crisis in game.finished:
        assert crisis["level"] <= crisis["threshold"]
        for p in game.players:
            assert -100 <= crisis["points"][p] <= 100


def _reputation_against(rival: str, seed: int) -> tuple[float, float]:
    record = house_match("brinkmanship", "reputation", rival, seed=seed)
    return record.seats[0].score, record.seats[1].score


@pytest.mark.parametrize("seed", range(3))
def test_the_reputation_bot_plays_for_points(seed: int) -> None:
    # The ladder ranks brinkmanship by mean payoff, so the strong bot maximises its own points:
    # peace with the peaceful (50 a crisis), standing in the last crisis, which has no future ...
    assert _reputation_against("always-yield", seed) == (350, 250)
    assert _reputation_against("grudger", seed) == (350, 250)
    # ... and it yields to a stander from the second crisis on instead of sharing a war.
    mine, theirs = _reputation_against("always-stand", seed)
    assert mine == 0 and theirs == 600


def test_defaults_are_six_crises_with_a_pot_of_100() -> None:
    game = _game()
    assert game.total_rounds == 6 and game.config.pot == 100 and game.config.max_threshold == 5
    view = round_state(game, game.players[0])
    assert view["escalation_level"] == 0 and view["step"] == 1 and view["pot"] == 100

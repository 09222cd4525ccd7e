"""Split-or-steal: conformance, every payoff cell, the negotiation's order and its limits."""

from __future__ import annotations

import pytest

from arena_cli.games_cmd import simulate
from games.core import ActionParseError, IllegalActionError
from games.core.conformance import check_game
from games.split_or_steal.game import SplitOrStealGame
from tests.games.helpers import new_game, play_both, round_state, say, strict_parser


def test_conformance() -> None:
    check_game("split-or-steal", seeds=range(20))


def _game() -> SplitOrStealGame:
    return new_game(SplitOrStealGame)


def _talk(game: SplitOrStealGame, n: int = 4) -> None:
    say(game, n)


@pytest.mark.parametrize(
    ("first", "second", "points"),
    [
        ("split", "split", (50, 50)),
        ("steal", "split", (100, 0)),
        ("split", "steal", (0, 100)),
        ("steal", "steal", (0, 0)),
    ],
)
def test_payoffs(first: str, second: str, points: tuple[int, int]) -> None:
    game = _game()
    p0, p1 = game.players
    _talk(game)
    assert game.get_current_player() == p0
    commits = ({"action_type": "commit", "choice": choice} for choice in (first, second))
    result = play_both(game, *commits)["round_result"]
    assert (result[p0]["your_points"], result[p1]["your_points"]) == points
    assert result[p1]["opponent_choice"] == first
    assert game.get_scores() == {p0: points[0], p1: points[1]}


def test_speakers_alternate_and_the_first_speaker_alternates_by_round() -> None:
    game = _game()
    p0, p1 = game.players
    assert say(game, 4, "x") == [p0, p1, p0, p1]
    game.step({"action_type": "commit", "choice": "split"})
    game.step({"action_type": "commit", "choice": "split"})
    assert game.get_round() == 2
    assert game.get_current_player() == p1


def test_phase_rules_are_explained() -> None:
    game = _game()
    with pytest.raises(IllegalActionError, match="negotiate phase"):
        game.step({"action_type": "commit", "choice": "split"})
    _talk(game)
    with pytest.raises(IllegalActionError, match="commit phase"):
        game.step({"action_type": "message", "text": "wait"})


def test_message_cap_and_choice_checked_by_the_parser() -> None:
    parser = strict_parser("split-or-steal")
    game = _game()
    valid = game.get_available_actions()
    with pytest.raises(ActionParseError, match="281 characters; the limit is 280"):
        parser.parse({"type": "message", "text": "x" * 281}, valid)
    _talk(game)
    valid = game.get_available_actions()
    assert parser.parse({"type": "commit", "choice": " Steal "}, valid)["choice"] == "steal"
    with pytest.raises(ActionParseError, match='"split" or "steal"'):
        parser.parse({"type": "commit", "choice": "share"}, valid)


def test_round_state_is_seed_002_shaped() -> None:
    game = _game()
    p0, p1 = game.players
    _talk(game, 1)
    state = round_state(game, p1)
    assert state["phase"] == "negotiate"
    assert (state["round"], state["turn"], state["pot"]) == (1, 2, 100)
    assert state["messages"] == [{"sender": "opponent", "text": "hi"}]
    assert state["first_speaker"] == "opponent"
    assert state["available_actions"] == [{"type": "message", "max_length": 280}]


def test_always_steal_beats_always_split_500_to_0() -> None:
    out = simulate("split-or-steal", ["always-steal", "always-split"], seed=0, matches=10)
    assert out["summary"]["wins"] == [10, 0]
    assert all(m["scores"] == [500.0, 0.0] for m in out["matches"])


def test_message_reader_beats_the_cooperators() -> None:
    for other in ("tit-for-tat", "grudger", "always-split"):
        out = simulate("split-or-steal", ["message-reader", other], seed=0, matches=2)
        assert out["summary"]["wins"] == [2, 0], other


def test_simulate_reports_the_games_own_ladder_figures_only() -> None:
    from arena_cli.games_cmd import ladder_figures
    from games.core import get_game_spec

    stats = [
        {"stats": {"bb_per_100": [100.0, -100.0], "hands_played": 100}},
        {"stats": {"bb_per_100": {"0": -50.0, "1": 50.0}, "hands_played": 300}},
        {"stats": {}},  # a match that reported none is not averaged in
    ]
    poker = ladder_figures(get_game_spec("poker").ladder_figures, 2, stats)
    assert poker == {"bb_per_100": {"label": "BB/100", "per_seat": [25.0, -25.0]}}
    out = simulate("split-or-steal", ["always-steal", "always-split"], seed=0, matches=1)
    assert "figures" not in out["summary"]

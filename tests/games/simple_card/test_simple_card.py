"""Simple-card: conformance and its rules."""

from __future__ import annotations

import pytest

from games.core import ArenaConfig, IllegalActionError, create_game
from games.core.conformance import check_game
from games.simple_card.game import SimpleCardGame
from tests.games.helpers import new_game


def test_conformance() -> None:
    check_game("simple-card", seeds=range(30))


def _game(seed: int = 1) -> SimpleCardGame:
    return new_game(SimpleCardGame, seed)


def test_higher_card_scores_one_and_tie_scores_nothing() -> None:
    game = _game()
    a, b = game.players
    game.hands = {a: [9, 5, 5], b: [3, 5, 7]}
    game.step({"action_type": "play_card", "card": 9})
    info, _ = game.step({"action_type": "play_card", "card": 3})
    assert info["round_result"][a]["your_points"] == 1
    assert info["round_result"][b]["opponent_card"] == 9
    game.step({"action_type": "play_card", "card": 5})
    info, _ = game.step({"action_type": "play_card", "card": 5})
    assert info["round_result"][a]["your_points"] == 0
    assert game.get_scores() == {a: 1.0, b: 0.0}


def test_a_card_not_in_hand_is_refused_with_the_hand() -> None:
    game = _game()
    a = game.get_current_player()
    missing = next(c for c in range(1, 11) if c not in game.hands[a])
    with pytest.raises(IllegalActionError, match="not in your hand"):
        game.step({"action_type": "play_card", "card": missing})


def test_config_is_validated() -> None:
    with pytest.raises(ValueError, match="hand_size"):
        create_game(ArenaConfig.for_seats("simple-card", ["a", "b"], 0, {"rounds": 5}))
    with pytest.raises(ValueError, match="Extra inputs"):
        create_game(ArenaConfig.for_seats("simple-card", ["a", "b"], 0, {"colour": "red"}))

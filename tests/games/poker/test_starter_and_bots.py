"""The poker starter agent runs unchanged (standard library only) and the house bots are sound."""

from __future__ import annotations

import random

from games.poker.bots import HandStrengthBot, equity


def test_equity_estimates_are_sensible() -> None:
    rng = random.Random(0)
    assert equity(["As", "Ah"], [], 400, rng) > 0.8
    assert equity(["7c", "2d"], [], 400, rng) < 0.4
    assert equity(["As", "Ks"], ["Qs", "Js", "Ts"], 50, rng) == 1.0  # a made royal flush


def test_hand_strength_bot_folds_trash_to_a_big_bet_and_raises_the_nuts() -> None:
    bot = HandStrengthBot()
    base = {
        "board": ["Kd", "9c", "4h"],
        "pot": 20_200,
        "to_call": 10_000,
        "opponent_bet": 10_000,
        "min_raise_to": 19_900,
        "max_raise_to": 19_900,
        "available_actions": [{"type": "fold"}, {"type": "call"}, {"type": "raise"}],
    }
    assert bot.on_turn({**base, "your_cards": ["7c", "2d"]}) == {"type": "fold"}
    assert bot.on_turn({**base, "your_cards": ["Kh", "Ks"]}) == {"type": "raise", "amount": 19_900}

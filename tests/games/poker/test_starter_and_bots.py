"""The poker starter agent runs unchanged (standard library only) and the house bots are sound."""

from __future__ import annotations

import itertools
import random

import pytest

from games.core import bot_clock
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


def test_equity_sampling_stops_at_its_deadline_on_the_deals_an_idle_machine_draws_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A clock that moves 1 ms each time it is read: the deadline falls after a known deal.
    ticks = itertools.count()
    monkeypatch.setattr(bot_clock.time, "perf_counter", lambda: next(ticks) / 1000)
    deadline = bot_clock.time.perf_counter() + 0.010
    cut = equity(["7c", "2d"], ["Ah", "Kd", "3s"], 10_000, random.Random(5), deadline)
    monkeypatch.undo()
    # About ten deals were drawn: the same first ten an unhurried estimate draws.
    for dealt in range(1, 20):
        if equity(["7c", "2d"], ["Ah", "Kd", "3s"], dealt, random.Random(5)) == cut:
            break
    else:
        raise AssertionError(f"{cut} is not the estimate of the first few deals")
    # A deadline already past still deals once: an estimate always stands on something.
    assert 0.0 <= equity(["As", "Ah"], [], 200, random.Random(1), deadline=0.0) <= 1.0


def test_the_hand_strength_bot_has_a_deadline_in_timed_matches_only() -> None:
    bot = HandStrengthBot()
    bot.on_match_start({"timed": True, "turn_timeout_s": 2.0})
    assert bot.clock.move_time_s == 2.0 * HandStrengthBot.BUDGET_SHARE
    bot.on_match_start({"timed": False, "turn_timeout_s": None})
    assert bot.clock.deadline() is None

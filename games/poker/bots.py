"""House bots for heads-up no-limit hold'em.

* ``always-call``: checks when it can, otherwise calls; never folds, never raises.
* ``raise-happy``: raises (about the size of the pot) whenever raising is open, else calls.
* ``hand-strength``: estimates its equity against a random hand by Monte Carlo with treys, then
  bets in proportion to that equity and calls only when the equity beats the pot odds.

All three read only the agent-facing ``round_state``. The Monte Carlo draws come from a
``random.Random`` seeded with the cards in view, so the same match replays identically. In a timed
match the sampling also stops at a deadline (``HandStrengthBot.BUDGET_SHARE`` of the turn budget,
``games/core/bot_clock.py``), which only a loaded worker ever reaches: the estimate then rests on
the deals drawn so far, the same first deals as on an idle machine.
"""

from __future__ import annotations

import random
from typing import Any

from treys import Card, Evaluator

from games.core.bot_clock import MoveClock, past

RANKS = "23456789TJQKA"
SUITS = "shdc"
_DECK = tuple(rank + suit for rank in RANKS for suit in SUITS)
_EVALUATOR = Evaluator()


def _can(round_state: dict[str, Any], kind: str) -> bool:
    return any(a["type"] == kind for a in round_state.get("available_actions", []))


def passive_action(round_state: dict[str, Any]) -> dict[str, Any]:
    """Check when nothing is owed, else call."""
    return {"type": "check"} if round_state["to_call"] == 0 else {"type": "call"}


def raise_to(round_state: dict[str, Any], target: int) -> dict[str, Any]:
    """A raise to ``target`` clamped into the legal range (all-in when it reaches the stack)."""
    low, high = round_state["min_raise_to"], round_state["max_raise_to"]
    amount = max(low, min(high, int(target)))
    return {"type": "raise", "amount": amount}


def equity(
    hole: list[str],
    board: list[str],
    samples: int,
    rng: random.Random,
    deadline: float | None = None,
) -> float:
    """Chance that ``hole`` beats a random hand on a random completion of ``board`` (ties ½),
    from ``samples`` deals, or those drawn before ``deadline`` (``time.perf_counter()``)."""
    seen = set(hole) | set(board)
    rest = [Card.new(c) for c in _DECK if c not in seen]
    mine = [Card.new(c) for c in hole]
    known = [Card.new(c) for c in board]
    missing = 5 - len(known)
    score = 0.0
    dealt = 0
    while dealt < samples and not (dealt and past(deadline)):  # at least one deal
        dealt += 1
        drawn = rng.sample(rest, 2 + missing)
        full_board = known + drawn[2:]
        my_rank = _EVALUATOR.evaluate(full_board, mine)
        their_rank = _EVALUATOR.evaluate(full_board, drawn[:2])
        if my_rank < their_rank:
            score += 1.0
        elif my_rank == their_rank:
            score += 0.5
    return score / max(1, dealt)


class AlwaysCallBot:
    """Checks or calls, every time."""

    GAME = "poker"

    def on_turn(self, round_state: dict[str, Any]) -> dict[str, Any]:
        """Check if free, else call."""
        return passive_action(round_state)


class RaiseHappyBot:
    """Raises about the pot whenever it may; otherwise calls."""

    GAME = "poker"

    def on_turn(self, round_state: dict[str, Any]) -> dict[str, Any]:
        """A pot-sized raise when raising is open, else check or call."""
        if round_state["min_raise_to"] is None or not _can(round_state, "raise"):
            return passive_action(round_state)
        pot_after_call = round_state["pot"] + round_state["to_call"]
        return raise_to(round_state, round_state["opponent_bet"] + pot_after_call)


class HandStrengthBot:
    """Monte Carlo equity against a random hand; bets in proportion, calls on pot odds."""

    GAME = "poker"
    #: Monte Carlo deals per decision (about 10 ms with treys in pure Python).
    SAMPLES = 200
    #: Equity from which it bets or raises for value.
    VALUE_EQUITY = 0.6
    #: The share of the turn budget the sampling may take on the wall clock (timed matches).
    BUDGET_SHARE = 0.25

    def __init__(self) -> None:
        self.clock = MoveClock(self.BUDGET_SHARE)

    def on_match_start(self, match_info: dict[str, Any]) -> None:
        """Take the sampling deadline from the match's clock: none in an untimed match."""
        self.clock.set_match(match_info)

    def on_turn(self, round_state: dict[str, Any]) -> dict[str, Any]:
        """Raise with a strong hand, call when the price is right, else check or fold."""
        deadline = self.clock.deadline()
        hole, board = round_state["your_cards"], round_state["board"]
        rng = random.Random(" ".join(hole + board) + f"/{round_state['to_call']}")
        win = equity(hole, board, self.SAMPLES, rng, deadline)
        to_call = round_state["to_call"]
        pot = round_state["pot"]
        raising_open = round_state["min_raise_to"] is not None and _can(round_state, "raise")
        if win >= self.VALUE_EQUITY and raising_open:
            # From a third of the pot at 60 % equity up to twice the pot near certainty.
            fraction = 1 / 3 + (win - self.VALUE_EQUITY) / (1 - self.VALUE_EQUITY) * (5 / 3)
            target = round_state["opponent_bet"] + int((pot + to_call) * fraction)
            action = raise_to(round_state, target)
            # Re-raising wars: with less than 80 % equity, just call big raises.
            if to_call > pot / 2 and win < 0.8:
                action = passive_action(round_state)
            return action
        if to_call == 0:
            return {"type": "check"}
        pot_odds = to_call / (pot + to_call)
        if win >= pot_odds + 0.05:
            return {"type": "call"}
        return {"type": "fold"}


BOTS: dict[str, type] = {
    "always-call": AlwaysCallBot,
    "raise-happy": RaiseHappyBot,
    "hand-strength": HandStrengthBot,
}

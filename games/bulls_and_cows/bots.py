"""House bots for bulls and cows, from trivial to strong.

* ``random``: probes random codes; guesses only when one code fits every answer (or on the last
  cycle, where passing is worth nothing).
* ``solver``: probes only codes consistent with every answer so far (the first in a fixed
  shuffled order), and guesses like ``random``.
* ``strong``: probes with the quickest prober (the probe after which the fewest codes still
  share an answer: it knows the code after 4.55 probes on average, the solver after 4.9) and
  races: when two or three codes are left it guesses if the opponent is likely to crack the code
  first (judged from the cycles in which it cracked earlier codes; until it has cracked one, it
  never gambles), since a wrong guess only locks it out of this round.
"""

from __future__ import annotations

import random
from typing import Any

from games.bulls_and_cows.solver import (
    ALL_CODES,
    FIRST_PROBE,
    History,
    consistent,
    quickest_probe_by,
    score,
)
from games.core.bot_clock import MoveClock


def qa_history(state: dict[str, Any]) -> History:
    """``your_qa_history`` as the solver's history of (probe, (bulls, cows))."""
    return tuple(
        (q["question"], (int(q["answer"]["bulls"]), int(q["answer"]["cows"])))
        for q in state["your_qa_history"]
    )


def _last_cycle(state: dict[str, Any]) -> bool:
    return int(state["cycle"]) >= int(state["cycle_limit"])


class RandomBot:
    """Random probes; guesses only with one code left (or at the very end)."""

    GAME = "bulls-and-cows"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def question(self, state: dict[str, Any], remaining: tuple[str, ...]) -> str:
        """Any code at all."""
        return self.rng.choice(ALL_CODES)

    def guess_unsure(self, state: dict[str, Any], remaining: tuple[str, ...]) -> bool:
        """Whether to guess with more than one code left before the last cycle: never."""
        return False

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        """Ask, then guess when sure (or when there is nothing left to lose, or
        ``guess_unsure`` says so)."""
        remaining = consistent(qa_history(state))
        if state["phase"] == "question":
            return {"type": "question", "code": self.question(state, remaining)}
        if len(remaining) == 1 or _last_cycle(state) or self.guess_unsure(state, remaining):
            return {"type": "guess", "code": remaining[0]}
        return {"type": "pass"}


class SolverBot(RandomBot):
    """Asks only codes that could still be the answer."""

    def __init__(self) -> None:
        super().__init__()
        order = list(ALL_CODES)
        random.Random(1).shuffle(order)
        self.rank = {code: i for i, code in enumerate(order)}

    def question(self, state: dict[str, Any], remaining: tuple[str, ...]) -> str:
        """The first consistent code in this bot's fixed shuffled order."""
        return min(remaining, key=self.rank.__getitem__)


class StrongBot(RandomBot):
    """Quick probes and a guessing rule that weighs the lock-out against the race."""

    #: P(an opponent like this bot pins the code down at cycle c, given not earlier), cycles 1..7.
    PRIOR_CRACK = (0.0, 0.0, 0.04, 0.35, 0.9, 1.0, 1.0)

    #: The share of the turn budget a probe's search may take on the wall clock (timed matches).
    BUDGET_SHARE = 0.25

    def __init__(self) -> None:
        super().__init__()
        self.clock = MoveClock(self.BUDGET_SHARE)
        self.deadline: float | None = None

    def on_match_start(self, match_info: dict[str, Any]) -> None:
        """Work out the second probe for every answer to the first while the clock is generous
        (loading has 10 s, a turn 2 s); the decisions are cached for the whole process. Take the
        search's deadline from the match's clock (none when untimed)."""
        self.clock.set_match(match_info)
        answers = {score(FIRST_PROBE, code) for code in ALL_CODES}
        for answer in sorted(answers):
            if answer != (4, 0):
                quickest_probe_by(((FIRST_PROBE, answer),))

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        """As the other bots, with this move's deadline set first."""
        self.deadline = self.clock.deadline()
        return super().on_turn(state)

    def question(self, state: dict[str, Any], remaining: tuple[str, ...]) -> str:
        """The probe that pins the code down soonest on average (the best found by the deadline
        on a loaded worker: ``quickest_probe_by``)."""
        return quickest_probe_by(qa_history(state), self.deadline)

    def crack_chance(self, state: dict[str, Any], cycle: int) -> float:
        """P(the opponent guesses right at ``cycle``, given it has not guessed before)."""
        prior = self.PRIOR_CRACK[min(cycle, len(self.PRIOR_CRACK)) - 1]
        at_risk, hits = 1.0, prior  # the prior counts as one earlier round
        for past in state["history"]:
            cracked_at = past["opponent_guess_cycle"] if past["opponent_points"] > 0 else None
            if cracked_at is None or cracked_at >= cycle:
                at_risk += 1
                hits += cracked_at == cycle
        return hits / at_risk

    def guess_unsure(self, state: dict[str, Any], remaining: tuple[str, ...]) -> bool:
        """Guess when waiting likely loses the race to an opponent seen cracking codes."""
        opponent_has_cracked = any(h["opponent_points"] > 0 for h in state["history"])
        if state["opponent_locked_out"] or not opponent_has_cracked or len(remaining) > 3:
            return False  # no race seen (yet): a sure guess comes within 7 probes
        cycle = int(state["cycle"])
        now, after = self.crack_chance(state, cycle), self.crack_chance(state, cycle + 1)
        guess_value = (now * 50 + (1 - now) * 100) / len(remaining)
        wait_value = (1 - now) * ((1 - after) * 100 + after * 50)
        return guess_value > wait_value


BOTS: dict[str, type] = {"random": RandomBot, "solver": SolverBot, "strong": StrongBot}

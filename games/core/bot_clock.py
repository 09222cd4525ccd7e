"""How long a house bot that searches may think: a share of the match's turn budget.

A house bot is the platform's own code, and its overrun is the platform's failure (the referee
ends the match as a platform error). A bot that searches (chess's alpha-beta, poker's Monte Carlo)
therefore stops on the wall clock as well as on its own work budget: on an idle machine the work
budget decides, so a seed gives the same moves everywhere; on a loaded worker the deadline cuts
the search and the bot plays what its last complete step found. Untimed matches (golden
playthroughs, strength tables, untimed training) have no deadline, so they stay deterministic.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

#: The turn budget assumed before ``on_match_start`` says the match's (the referee's default).
DEFAULT_TURN_TIMEOUT_S = 2.0


@dataclass
class MoveClock:
    """A bot's thinking time per move: ``share`` of the match's turn budget, or none if untimed."""

    #: The share of the turn budget one move may take on the wall clock.
    share: float
    #: Seconds a move may take; ``None`` in an untimed match.
    move_time_s: float | None = None

    def __post_init__(self) -> None:
        if self.move_time_s is None:
            self.move_time_s = self.share * DEFAULT_TURN_TIMEOUT_S

    def set_match(self, match_info: dict[str, Any]) -> None:
        """Take the budget from ``on_match_start``'s ``match_info`` (``timed``,
        ``turn_timeout_s``)."""
        timeout = match_info.get("turn_timeout_s")
        if not match_info.get("timed", True) or not isinstance(timeout, int | float):
            self.move_time_s = None
        else:
            self.move_time_s = self.share * max(0.0, float(timeout))

    def deadline(self) -> float | None:
        """The ``time.perf_counter()`` value this move must stop searching at (None: no clock).

        Call it first thing in ``on_turn``: the move's own preparation counts too."""
        return None if self.move_time_s is None else time.perf_counter() + self.move_time_s


def past(deadline: float | None) -> bool:
    """Whether ``deadline`` (from ``MoveClock.deadline``) has passed."""
    return deadline is not None and time.perf_counter() >= deadline

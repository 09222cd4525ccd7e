"""A match's clock: the budgets its seats play under when it is timed.

The platform's budgets are ``ARENA_TURN_TIMEOUT_S`` for a code seat's call and
``ARENA_LLM_MOVE_BUDGET_S`` for a model seat's move. An app above this one that makes matches
with a time control of their own (a tournament's) adds a *clock source* when it starts
(``clock_source_add``, from its ``AppConfig.ready``): this app never imports it, and
``match_clock`` is the one place that says which budgets a match gets. It is read once per
match attempt (``match_play``) and wherever the match's time limits are sized
(``status.match_time_limits_s``), never once per turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings

from arena.matches.models import Match


@dataclass(frozen=True)
class MatchClock:
    """The budgets of one timed match, in seconds (an untimed match keeps no clock)."""

    #: A code seat's budget per call (the referee's ``turn_timeout_s``).
    turn_budget_s: float
    #: A model seat's budget per move, re-asks included.
    model_move_budget_s: float


def clock_with(
    *, turn_budget_s: float | None = None, model_move_budget_s: float | None = None
) -> MatchClock:
    """The budgets given, the platform's for those left empty."""
    return MatchClock(
        turn_budget_s=(
            float(settings.ARENA_TURN_TIMEOUT_S) if turn_budget_s is None else turn_budget_s
        ),
        model_move_budget_s=(
            float(settings.ARENA_LLM_MOVE_BUDGET_S)
            if model_move_budget_s is None
            else model_move_budget_s
        ),
    )


#: A match's clock as the app that made it chose it, or ``None`` when the match is not its own.
ClockSource = Callable[[Match], MatchClock | None]

_sources: list[ClockSource] = []


def clock_source_add(source: ClockSource) -> None:
    """Let ``source`` choose the clock of its own matches (idempotent)."""
    if source not in _sources:
        _sources.append(source)


def match_clock(match: Match) -> MatchClock:
    """The effective budgets of ``match``: its source's (a tournament's time control), else the
    platform's. A source answers without a query for a match that is not its own."""
    for source in _sources:
        clock = source(match)
        if clock is not None:
            return clock
    return clock_with()

"""The match status machine: the allowed moves and the time a match may take."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings

from arena import metrics
from arena.llm.selectors import model_entrant_ids
from arena.matches.clock import MatchClock, match_clock
from arena.matches.models import Match
from games.core import ArenaConfig, create_game
from games.core.registry import UnknownGameError, is_judged

logger = logging.getLogger(__name__)

#: The only moves ``match_set_status`` allows (running → queued is a retry after a platform error).
ALLOWED_TRANSITIONS = {
    Match.Status.QUEUED: {Match.Status.RUNNING, Match.Status.ERROR},
    Match.Status.RUNNING: {
        Match.Status.RUNNING,
        Match.Status.FINISHED,
        Match.Status.ERROR,
        Match.Status.QUEUED,
    },
    Match.Status.FINISHED: {Match.Status.ERROR},
    Match.Status.ERROR: {Match.Status.QUEUED},
}


class InvalidTransition(RuntimeError):
    """A status change the machine does not allow: a bug in the caller, never a user's request
    (a service that refuses a user checks the status first and raises ``Refused``)."""


def match_set_status(*, match: Match, status: str, **fields: Any) -> Match:
    """Change a match's status (and any other fields) if the transition is allowed; else
    ``InvalidTransition``."""
    allowed = ALLOWED_TRANSITIONS.get(Match.Status(match.status), set())
    if status not in allowed:
        raise InvalidTransition(f"match {match.pk}: a {match.status} match cannot become {status}")
    previous = match.status
    match.status = status
    for key, value in fields.items():
        setattr(match, key, value)
    match.save(update_fields=["status", *fields])
    _count_transition(match=match, previous=str(previous), status=status)
    return match


#: The counter each status change adds to (docs/operations.md, "Metrics").
_STATUS_COUNTERS = {
    Match.Status.RUNNING: metrics.MATCHES_STARTED,
    Match.Status.FINISHED: metrics.MATCHES_FINISHED,
    Match.Status.ERROR: metrics.MATCHES_ERRORED,
    Match.Status.QUEUED: metrics.MATCHES_REQUEUED,
}


def _count_transition(*, match: Match, previous: str, status: str) -> None:
    if previous == Match.Status.FINISHED:
        return  # an administrator's void, not a platform error
    counter = _STATUS_COUNTERS.get(Match.Status(status))
    if counter is not None:
        metrics.inc(counter, kind=str(match.kind), game=str(match.game))
    if status == Match.Status.FINISHED and match.duration_s is not None:
        metrics.observe(
            metrics.MATCH_DURATION, float(match.duration_s), kind=str(match.kind), game=match.game
        )


#: The most judge requests a round of a judged game is sized for (passcode: two questions a
#: cycle over ten cycles; the persuasion games: a question a step and the verdict).
JUDGE_CALLS_PER_ROUND = 20


def _judged(game_id: str) -> bool:
    try:
        return is_judged(game_id)
    except UnknownGameError:
        return False


def match_time_limits_s(
    match: Match,
    *,
    seats: int | None = None,
    with_model: bool | None = None,
    clock: MatchClock | None = None,
) -> tuple[float, float]:
    """(soft, hard) Celery time limits derived from the game: its rounds, seats and clock.

    Games do not declare a turn cap, so a round is assumed to take at most
    ``max(10, 200 // rounds)`` calls per seat (a one-round chess game: 200 plies each), every
    call allowed its full budget (the match's, ``matches.clock.match_clock``: a tournament's time
    control, or the platform's); clamped to [5 min, 6 h]. ``seats`` and ``clock`` spare their
    queries when the caller knows them.
    """
    seats = seats or match.participants.count() or 2
    try:
        game = create_game(
            ArenaConfig.for_seats(
                match.game, [f"seat{i}" for i in range(seats)], match.seed, match.config
            )
        )
        rounds = max(1, int(game.total_rounds))
    except Exception:  # a game that cannot say: assume a long one
        logger.exception("could not size match %s of %s", match.pk, match.game)
        rounds = 200
    if clock is None:
        clock = match_clock(match)
    per_call_s = clock.turn_budget_s if match.timed else 60.0
    if with_model is None:
        with_model = match.pk is not None and bool(
            model_entrant_ids(match.participants.values_list("submission_id", flat=True))
        )
    if with_model:
        # A model seat's move may take its whole budget (docs/llm-seats.md).
        model_s = (
            clock.model_move_budget_s if match.timed else settings.ARENA_LLM_UNTIMED_CALL_CAP_S
        )
        per_call_s = max(per_call_s, model_s)
    calls = rounds * seats * max(10, 200 // rounds)
    judge_s = 0.0
    if _judged(match.game):
        # A judged game's judge answers between the calls (docs/games.md, "Judged games"):
        # a bounded number of requests a round, each allowed its whole call time.
        judge_s = rounds * JUDGE_CALLS_PER_ROUND * settings.ARENA_JUDGE_CALL_TIMEOUT_S
    hard = min(max(60.0 + calls * per_call_s + judge_s, 300.0), 6 * 3600.0)
    return hard - 30, hard


def match_deadline(match: Match) -> datetime | None:
    """When a running match is overdue: its start, plus its hard time limit, plus a grace for
    the worker to record it. ``None`` if it has not started."""
    if match.started is None:
        return None
    hard = match.time_limit_s if match.time_limit_s is not None else match_time_limits_s(match)[1]
    return match.started + timedelta(seconds=hard + settings.ARENA_MATCH_DEADLINE_GRACE_S)

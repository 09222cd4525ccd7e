"""Play one match in the sandbox: the handles, the referee, the live log and the call metrics.

``match_play`` gives the referee's ``MatchRecord`` or a ``PlayFailure``; beginning an attempt
and recording its result are writes, in ``matches/services.py``; effects on other apps are the
workflows' business (``arena.workflows.matches`` describes the whole chain from the Celery task
to the referee).
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable

from django.conf import settings

from arena import metrics
from arena.db_outage import database_unreachable
from arena.llm.judging import PlatformJudge, platform_judge
from arena.matches import sandboxing
from arena.matches.clock import match_clock
from arena.matches.eventlog import EventWriter
from arena.matches.models import Match
from arena.matches.services import PlayFailure
from games.core import MatchRecord, MatchSettings, play_match
from games.core.judge import Judge
from games.core.record import LogEntry
from games.core.registry import is_judged, offline_judge
from games.core.validation import validation_plan

logger = logging.getLogger(__name__)


def match_play(*, match: Match) -> MatchRecord | PlayFailure:
    """Play the match in the sandbox, logging as it goes; the record, or the platform's failure
    (the sandbox, a setting, a bug in the game engine: never the agents' fault)."""
    participants = list(match.participants.select_related("submission__agent").order_by("seat"))
    writer = EventWriter(match.pk)
    judge: Judge | None = None
    try:
        clock = match_clock(match)  # once a match: a tournament's time control, or the platform's
        # Freezing the waiting agent (≈25 ms a call) keeps it from computing on its opponent's
        # time; that only matters where the result counts. Validation plays an agent against
        # itself and training is unrated, so they run unfrozen (a poker self-play: minutes less).
        freeze = match.kind in (Match.Kind.RANKED, Match.Kind.TOURNAMENT)
        handles = [
            sandboxing.make_handle(
                p.submission,
                freeze_idle=freeze,
                match_id=match.pk,
                seat=p.seat,
                match_attempt=match.attempts,
                validation=match.kind == Match.Kind.VALIDATION,
                model_move_budget_s=clock.model_move_budget_s,
            )
            for p in participants
        ]
        judge = _judge_of(match)
        record = play_match(
            match.game,
            handles,
            seed=match.seed,
            config=match.config,
            settings=MatchSettings(
                timed=match.timed,
                turn_timeout_s=clock.turn_budget_s,
                keep_stdout=(
                    match.kind not in (Match.Kind.RANKED, Match.Kind.TOURNAMENT)
                    or settings.ARENA_RANKED_PRINTS_RETENTION_DAYS > 0
                ),
                # A validation's time is bounded whatever the agent does.
                max_turns=(
                    validation_plan(match.game).max_turns
                    if match.kind == Match.Kind.VALIDATION
                    else None
                ),
            ),
            on_event=CallMetrics(
                writer if match.kind != Match.Kind.CHALLENGE else _challenger_prints(writer),
                game=match.game,
            ),
            judge=judge,
        )
    except Exception as exc:  # the platform failed (sandbox, settings): never the agents' fault
        if database_unreachable(exc):
            raise  # nothing can be recorded now: the task waits for the database, then retries
        logger.exception("match %s could not be played", match.pk)
        return PlayFailure(error=f"{type(exc).__name__}: {exc}", trace=traceback.format_exc())
    finally:
        writer.flush()  # never raises: a log that cannot be stored is stored marked
        if isinstance(judge, PlatformJudge):
            judge.close()
    if record.platform_error:
        logger.error(
            "match %s: platform error: %s\n%s",
            match.pk,
            record.platform_error,
            record.platform_traceback or "",
        )
        return PlayFailure(
            error=record.platform_error,
            trace=record.platform_traceback or "",
            retry=record.platform_error_retryable,
        )
    if writer.lost_to_outage:
        # Its log has a gap: a replay would not show what was played. The platform's failure,
        # never the agents': the match is played again.
        return PlayFailure(
            error=(
                f"{writer.lost_to_outage} log entries were lost: the database could not be "
                "reached while the match was played, so its log has a gap"
            )
        )
    return record


def _judge_of(match: Match) -> Judge | None:
    """The judge of a judged game's match: the operator's model (``arena.llm.judging``), or for
    an upload's validation the game's scripted stand-in (validation proves the agent answers
    every call; it is unrated and must not spend the site's model budget). ``JudgeFailed``
    (a platform error) when the game has no judge."""
    if not is_judged(match.game):
        return None
    if match.kind == Match.Kind.VALIDATION:
        return offline_judge(match.game)
    return platform_judge(game_id=match.game, match_id=match.pk, match_attempt=match.attempts)


def _challenger_prints(writer: EventWriter) -> Callable[[LogEntry], None]:
    """A challenge keeps the prints of the challenger's seat (0) only: the challenged agent's
    owner did not ask for the match, so nothing of its output is stored."""

    def write(entry: LogEntry) -> None:
        if entry.get("seat") != 0 and entry.get("stdout") is not None:
            entry = {**entry, "stdout": None}
        writer(entry)

    return write


class CallMetrics:
    """Passes each log entry on to ``sink`` and counts agent calls in the metrics: the wall
    time waited, the time charged to the agent, and the path that froze it afterwards."""

    def __init__(self, sink: Callable[[LogEntry], None], *, game: str) -> None:
        self.sink = sink
        self.game = game

    def __call__(self, entry: LogEntry) -> None:
        self.sink(entry)
        wall_ms, charged_ms = entry.get("wall_ms"), entry.get("elapsed_ms")
        if isinstance(wall_ms, int | float):
            metrics.observe(metrics.CALL_LATENCY, wall_ms / 1000, game=self.game)
        if isinstance(charged_ms, int | float):
            metrics.observe(metrics.CALL_CHARGED, charged_ms / 1000, game=self.game)
        freeze = entry.get("freeze")
        if isinstance(freeze, str) and freeze:
            metrics.inc(metrics.FREEZES, path=freeze[:32])

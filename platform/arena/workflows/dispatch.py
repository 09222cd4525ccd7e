"""Enqueue matches once their transaction commits.

The tasks call the workflows, and the workflows enqueue tasks: to keep that from becoming an
import circle, tasks are sent by name (``tasks.py`` registers them under these names, and
``apps.py`` imports it in every process).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from celery.utils import uuid
from django.db import transaction
from django.utils import timezone

from arena.accounts.models import User
from arena.celery_app import app
from arena.matches.clock import MatchClock, match_clock
from arena.matches.models import Match, Participant
from arena.matches.queues import match_queue, match_role, queue_name
from arena.matches.services import match_create
from arena.matches.status import match_time_limits_s
from arena.submissions.models import Submission

MATCH_RUN_TASK = "arena.workflows.tasks.match_run_task"
MATCHMAKING_TASK = "arena.workflows.tasks.matchmaking_task"


def match_enqueue(match_id: int) -> None:
    """Send the match to its queue with time limits from its game."""
    match = Match.objects.get(pk=match_id)
    soft, hard = match_time_limits_s(match)
    Match.objects.filter(pk=match_id).update(enqueued=timezone.now())
    app.tasks[MATCH_RUN_TASK].apply_async(
        args=[match_id], queue=match_queue(match), soft_time_limit=soft, time_limit=hard
    )


def matches_enqueue_on_commit(matches: Sequence[Match]) -> None:
    """Enqueue a batch of two-seat matches (one matchmaking pass) when the transaction commits:
    time limits sized once per game and one producer (one broker connection) for them all,
    without a query per match."""
    if not matches:
        return

    def enqueue() -> None:
        task = app.tasks[MATCH_RUN_TASK]
        ids = [m.pk for m in matches]
        Match.objects.filter(pk__in=ids).update(enqueued=timezone.now())
        # ``match_role``'s rule for the whole batch in one query: a match with a language-model
        # seat, or of a judged game, goes to the llm queue, any other to its kind's.
        with_model = set(
            Participant.objects.filter(
                match_id__in=ids, submission__model_entrant__isnull=False
            ).values_list("match_id", flat=True)
        )
        # Time limits and queues sized once per game, kind, kind of seat (a model seat's move
        # is longer) and clock, not once per match.
        routes: dict[tuple[str, int, str, bool, MatchClock], tuple[str, float, float]] = {}
        eager = bool(app.conf.task_always_eager)  # tests run the task in place
        with app.producer_or_acquire() as producer, _batched(producer) as batched:
            for m in matches:
                clock = match_clock(m)  # no query but for a tournament's game
                key = (m.game, m.game_version, m.kind, m.pk in with_model, clock)
                if key not in routes:
                    queue = queue_name(match_role(m.kind, m.game, model_seat=key[3]))
                    routes[key] = (
                        queue,
                        *match_time_limits_s(m, seats=2, with_model=key[3], clock=clock),
                    )
                queue, soft, hard = routes[key]
                if eager:
                    task.apply_async(
                        args=[m.pk], queue=queue, soft_time_limit=soft, time_limit=hard
                    )
                    continue
                # What ``apply_async`` sends, built by Celery's message layer directly: the
                # routing and options it would work out again for every message are the same
                # for the whole batch (the queue is named; no ETA, expiry or result).
                # The arguments' printed form is given (Celery would ``saferepr`` them), and
                # no per-message retry: inside the batch a message only joins the pipeline, and
                # what reaches the broker is sent, or fails, when the batch ends.
                message = app.amqp.create_task_message(
                    uuid(),
                    MATCH_RUN_TASK,
                    (m.pk,),
                    {},
                    time_limit=hard,
                    soft_time_limit=soft,
                    ignore_result=True,
                    argsrepr=f"({m.pk},)",
                    kwargsrepr="{}",
                )
                app.amqp.send_task_message(
                    producer, MATCH_RUN_TASK, message, queue=queue, retry=not batched
                )

    transaction.on_commit(enqueue)


def _batched(producer: Any) -> AbstractContextManager[bool]:
    """The producer's messages sent together when the block ends, where the broker's channel
    can (Redis: one round trip for the batch, arena.celery_redis); else one by one. The block
    gets whether they are batched."""
    batched_puts = getattr(producer.channel, "batched_puts", None)
    return batched_puts() if batched_puts is not None else nullcontext(False)


def match_enqueue_on_commit(match_id: int) -> None:
    """Enqueue the match when the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: match_enqueue(match_id))


def match_schedule(
    *,
    kind: str,
    submissions: Sequence[Submission],
    timed: bool = True,
    requested_by: User | None = None,
    seed: int | None = None,
) -> Match:
    """Store a match pinning these submissions (seat order) and enqueue it once committed."""
    match = match_create(
        kind=kind, submissions=submissions, timed=timed, requested_by=requested_by, seed=seed
    )
    match_enqueue_on_commit(match.pk)
    return match

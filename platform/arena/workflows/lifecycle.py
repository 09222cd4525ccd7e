"""Every match ends: the sweeper (a beat task) finds what a dead worker or a lost message left.

A running match past its deadline (start + its game's hard time limit + a grace) had its worker
die or hang: it is queued again while attempts remain, else ended as an unrated platform error
(a validation tells the uploader it was not their fault). Idempotent: each step re-checks under
the match's lock, and a message sent twice is harmless (``match_begin``).

A running match whose task no live worker reports as active (its worker was killed) is treated
as overdue at once, without waiting for its deadline: the workers are asked (Celery's
``inspect().active()``); when none answers, only deadlines count. A task whose message waits in
the broker to be delivered again counts as live.

A queued match whose message was lost (a task that failed before it could record anything, a
batch that never left, a worker that dropped what it had prefetched when its broker connection
broke) is found by reading the broker: on Redis, a match sent ``ARENA_MATCH_LOST_GRACE_S`` ago
whose message is in no queue and was not taken by a worker within that grace is sent again, so
a lost message costs seconds, while a match that waits its turn in a long queue is left alone.
On the filesystem broker (``make run``'s) the sweeper reads the queue folder and asks the live
workers which match tasks they hold (running, taken to run next, or waiting out a countdown):
a match in neither was lost. Where neither can be read (no worker answers, an eager test), a
queued match is sent again ``ARENA_MATCH_QUEUED_MAX_S`` after it was sent. The unacknowledged
message of a match that is over (its worker's acknowledgement was lost with a broker restart) is
dropped, instead of being delivered again when the broker's visibility timeout runs out an hour
later.

``make run`` stopping (or starting after a run that was killed) hands its cut matches back at
once (``matches_requeue_interrupted``): a stop is nobody's failure.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import socket
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from arena.celery_app import app
from arena.celery_filesystem import is_filesystem_channel
from arena.celery_filesystem import queued_messages as fs_queued_messages
from arena.celery_redis import Held, held_drop, held_messages, is_redis_channel, queued_messages
from arena.competitions.services import challenges_release
from arena.matches.models import Match
from arena.matches.services import PlayFailure, RunOutcome, match_lock, match_platform_failure
from arena.matches.status import match_deadline, match_set_status
from arena.ops.selectors import matches_claimed_by_other_nodes, nodes_of_processes
from arena.ops.services import heartbeat_remove
from arena.workflows.competitions import match_effects
from arena.workflows.dispatch import MATCH_RUN_TASK, match_enqueue, match_enqueue_on_commit
from arena.workflows.submissions import validation_errored

logger = logging.getLogger(__name__)


def live_task_ids() -> set[str] | None:
    """The ids of the tasks the live workers are running, or ``None`` when none answers."""
    if app.conf.task_always_eager:
        return None
    try:
        replies = app.control.inspect(timeout=settings.ARENA_SWEEP_ASK_TIMEOUT_S).active()
    except Exception:  # the broker cannot broadcast or is down: fall back on deadlines
        logger.info("no worker could be asked for its active tasks", exc_info=True)
        return None
    if not replies:
        return None
    return {str(task.get("id")) for tasks in replies.values() for task in tasks or []}


@dataclass(frozen=True)
class BrokerView:
    """What the broker holds for this deployment's match tasks, read at one moment."""

    #: Match ids with a message waiting in a queue.
    waiting: frozenset[int]
    #: Unacknowledged messages (taken by a worker) by match id.
    held: dict[int, list[Held]] = field(default_factory=dict)
    #: Task ids of the messages waiting in a queue (a task sent again, not yet taken).
    waiting_task_ids: frozenset[str] = frozenset()
    #: Task ids of the unacknowledged messages, with when each was taken (``time.time()``).
    held_task_ids: dict[str, float] = field(default_factory=dict)
    #: Match ids whose task a live worker says it holds (the filesystem broker, whose taken
    #: messages live in the workers only).
    in_workers: frozenset[int] = frozenset()


def _match_of(message: dict[str, Any]) -> tuple[int, str] | None:
    """(match id, task id) of a match task's message, or None for any other message."""
    headers = message.get("headers") or {}
    if not isinstance(headers, dict) or headers.get("task") != MATCH_RUN_TASK:
        return None
    task_id = str(headers.get("id") or "")
    try:
        body: str | bytes = str(message.get("body"))
        if (message.get("properties") or {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        return int(json.loads(body)[0][0]), task_id
    except Exception:
        found = re.fullmatch(r"\((\d+),?\)", str(headers.get("argsrepr", "")))
        return (int(found.group(1)), task_id) if found else None


def broker_view(*, queues: bool = True, lost_check: bool = True) -> BrokerView | None:
    """What the broker holds for this deployment's match tasks (the waiting messages only with
    ``queues``), or None when it cannot be read (eager tests, Redis away, no worker answering
    on the filesystem broker)."""
    if app.conf.task_always_eager:
        return None
    names = list(settings.ARENA_QUEUES.values())
    try:
        with app.connection_for_read() as conn:
            channel = conn.default_channel
            if is_filesystem_channel(channel):
                return _filesystem_view(channel, names) if queues and lost_check else None
            if not is_redis_channel(channel):
                return None
            # The queues before the taken ones: a message moves from the first to the second.
            waiting_messages = queued_messages(channel, names) if queues else []
            held_list = held_messages(channel, names)
    except Exception:
        logger.info("the broker could not be read", exc_info=True)
        return None
    waiting: set[int] = set()
    waiting_task_ids: set[str] = set()
    for message in waiting_messages:
        if (found := _match_of(message)) is not None:
            waiting.add(found[0])
            waiting_task_ids.add(found[1])
    held: dict[int, list[Held]] = {}
    held_task_ids: dict[str, float] = {}
    for entry in held_list:
        if (found := _match_of(entry.message)) is not None:
            held.setdefault(found[0], []).append(entry)
            held_task_ids[found[1]] = max(entry.delivered, held_task_ids.get(found[1], 0.0))
    return BrokerView(
        waiting=frozenset(waiting),
        held=held,
        waiting_task_ids=frozenset(waiting_task_ids),
        held_task_ids=held_task_ids,
    )


#: What a worker holds besides what it runs (a task just started is running a moment later; a
#: match sent again meanwhile is harmless): taken to run next, or waiting out a countdown.
_INSPECTIONS = ("reserved", "scheduled")
#: The workers are asked at most this often (each question waits its timeout on the
#: maintenance pool, which matchmaking shares); a lost message waits one more interval at most.
_FS_ASK_EVERY_S = 15.0
_fs_asked_at = [float("-inf")]


def _task_of(entry: Any) -> tuple[int, str] | None:
    """(match id, task id) of a match task in a worker's answer to an inspection."""
    if not isinstance(entry, dict):
        return None
    inner = entry.get("request")
    request: dict[str, Any] = inner if isinstance(inner, dict) else entry
    if request.get("name") != MATCH_RUN_TASK:
        return None
    args = request.get("args")
    if isinstance(args, list | tuple) and args and isinstance(args[0], int):
        return args[0], str(request.get("id") or "")
    found = re.match(r"[\[(](\d+)", str(args or request.get("argsrepr") or ""))
    return (int(found.group(1)), str(request.get("id") or "")) if found else None


def _filesystem_view(channel: Any, names: list[str]) -> BrokerView | None:
    """The queue folder's waiting messages, then what the live workers hold: None when no
    worker answers (then a lost message cannot be told from a held one), or when they were
    asked less than ``_FS_ASK_EVERY_S`` ago."""
    if time.monotonic() - _fs_asked_at[0] < _FS_ASK_EVERY_S:
        return None
    _fs_asked_at[0] = time.monotonic()
    waiting: set[int] = set()
    waiting_task_ids: set[str] = set()
    for message in fs_queued_messages(channel, names):
        if (found := _match_of(message)) is not None:
            waiting.add(found[0])
            waiting_task_ids.add(found[1])
    # Read after the folder: a message taken in between is in a worker's answer.
    inspect = app.control.inspect(timeout=settings.ARENA_SWEEP_ASK_TIMEOUT_S)
    answered = False
    in_workers: set[int] = set()
    held_task_ids: dict[str, float] = {}
    for command in _INSPECTIONS:
        replies = getattr(inspect, command)()
        if not replies:
            continue
        answered = True
        for entries in replies.values():
            for entry in entries or []:
                if (found := _task_of(entry)) is not None:
                    in_workers.add(found[0])
                    held_task_ids[found[1]] = time.time()
    if not answered:
        return None
    return BrokerView(
        waiting=frozenset(waiting),
        waiting_task_ids=frozenset(waiting_task_ids),
        held_task_ids=held_task_ids,
        in_workers=frozenset(in_workers),
    )


def _held_drop(tags: list[str]) -> int:
    """Drop these unacknowledged messages (never delivered again); 0 when the broker is away."""
    if not tags:
        return 0
    try:
        with app.connection_for_read() as conn:
            return held_drop(conn.default_channel, tags)
    except Exception:
        logger.info("unacknowledged messages could not be dropped", exc_info=True)
        return 0


def _database_restarted_since(when: datetime) -> bool:
    """Whether the database server started after ``when`` (PostgreSQL says when it did): then
    a task playing since before it lost its connection, whatever its worker did."""
    if connection.vendor != "postgresql":
        return False
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_postmaster_start_time()")
            row = cursor.fetchone()
    except Exception:
        logger.debug("the database's start time could not be read", exc_info=True)
        return False
    return row is not None and isinstance(row[0], datetime) and row[0] > when


def _lost_reason(match: Match, *, orphaned: bool) -> str:
    """Why a running match's attempt was lost, as its owners and staff read it."""
    if match.started is not None and _database_restarted_since(match.started):
        why = (
            "its task could not reach the database (the database restarted while the match "
            "was played)"
        )
    elif orphaned:
        why = "no live worker runs it (its worker stopped)"
    else:
        why = "it overran its deadline (its worker stopped or hung)"
    then = (
        "the match is queued again"
        if match.attempts < settings.ARENA_MATCH_MAX_ATTEMPTS
        else "no attempt is left"
    )
    return f"attempt {match.attempts} was lost: {why}; {then}"


def matches_sweep() -> dict[str, int]:
    """One sweep; returns how many matches were re-queued, errored and re-sent, and how many
    unacknowledged messages of finished matches were dropped."""
    counts = {"requeued": 0, "errored": 0, "resent": 0}
    now = timezone.now()
    running = list(Match.objects.filter(status=Match.Status.RUNNING).values_list("pk", flat=True))
    live = live_task_ids() if running else None
    lost_after = now - timedelta(seconds=settings.ARENA_MATCH_LOST_GRACE_S)
    # Queued matches sent a while ago: either waiting their turn, or their message was lost.
    sent = list(
        Match.objects.filter(status=Match.Status.QUEUED, enqueued__lt=lost_after).values_list(
            "pk", flat=True
        )
    )
    view = broker_view(queues=bool(sent or running), lost_check=bool(sent))
    orphan_after = now - timedelta(seconds=settings.ARENA_MATCH_ORPHAN_GRACE_S)
    if live is not None and view is not None:
        # A task sent again (waiting in its queue, or just taken to wait out its countdown) is
        # not orphaned. A message taken long ago proves nothing: a killed worker's stays
        # unacknowledged until the visibility timeout.
        taken_after = orphan_after.timestamp()
        live = live | view.waiting_task_ids
        live |= {t for t, at in view.held_task_ids.items() if at > taken_after}
    for match_id in running:
        with transaction.atomic():
            match = match_lock(match_id=match_id)
            if match is None or match.status != Match.Status.RUNNING:
                continue
            deadline = match_deadline(match)
            orphaned = (
                live is not None
                and match.task_id not in live
                and match.started is not None
                and match.started < orphan_after
            )
            if not orphaned and deadline is not None and now < deadline:
                continue
            error = _lost_reason(match, orphaned=orphaned)
            outcome = match_platform_failure(match=match, failure=PlayFailure(error=error))
            if outcome is RunOutcome.RETRY:
                match_enqueue_on_commit(match.pk)
                counts["requeued"] += 1
            else:
                counts["errored"] += 1
            if match.kind == Match.Kind.VALIDATION:
                validation_errored(match=match, retrying=outcome is RunOutcome.RETRY)
            if match.status == Match.Status.ERROR:
                match_effects(match=match)  # never raises: notifications, waiting challenges
            logger.warning("swept match %s: %s (%s)", match.pk, error, match.status)
    waited = now - timedelta(seconds=settings.ARENA_MATCH_QUEUED_MAX_S)
    # A challenge never sent waits for its user's challenges in flight (fair share): it is
    # released below when that user has room, not re-sent as lost.
    held = Q(kind=Match.Kind.CHALLENGE, enqueued__isnull=True)
    lost = set(
        Match.objects.filter(status=Match.Status.QUEUED)
        .filter(Q(enqueued__lt=waited) | Q(enqueued__isnull=True, created__lt=waited))
        .exclude(held)
        .values_list("pk", flat=True)
    )
    stale: list[str] = []
    if view is not None:
        # Sent a grace ago, waiting in no queue, and not taken by a worker within the grace
        # (a worker takes a message when it can start it, or to wait out a short retry
        # countdown): nobody will ever play it.
        taken_after = lost_after.timestamp()
        for match_id in sent:
            holds = view.held.get(match_id, [])
            if (
                match_id in view.waiting
                or match_id in view.in_workers
                or any(h.delivered > taken_after for h in holds)
            ):
                continue
            lost.add(match_id)
            stale += [h.tag for h in holds]  # else delivered again an hour later (harmless)
    for match_id in sorted(lost):
        with transaction.atomic():
            match = match_lock(match_id=match_id)
            if match is None or match.status != Match.Status.QUEUED:
                continue
            match_enqueue_on_commit(match.pk)
            counts["resent"] += 1
    if view is not None and view.held:
        # A match that is over needs its message no more: its acknowledgement was lost (the
        # broker restarted while it was played), and it would be delivered again an hour later.
        unfinished = set(
            Match.objects.filter(pk__in=list(view.held))
            .exclude(status__in=(Match.Status.FINISHED, Match.Status.ERROR))
            .values_list("pk", flat=True)
        )
        stale += [h.tag for m, hs in view.held.items() if m not in unfinished for h in hs]
    dropped = _held_drop(stale)
    if dropped:
        counts["dropped"] = dropped
    waiting_users = (
        Match.objects.filter(held, status=Match.Status.QUEUED, created__lt=waited)
        .exclude(requested_by=None)
        .values_list("requested_by_id", flat=True)
        .distinct()
    )
    for user_id in list(waiting_users):
        with transaction.atomic():
            for match_id in challenges_release(user_id=user_id):
                match_enqueue_on_commit(match_id)
                counts["resent"] += 1
    return counts


def matches_requeue_interrupted(*, worker_pids: Collection[int] = ()) -> int:
    """Queue again, at once, the matches a stopped ``make run`` was playing; returns how many.

    ``make run`` calls it when it stops (its workers ``worker_pids`` are dead by then) and when
    it starts (before its workers, for a run that was killed without a clean stop). A running
    match that no other live worker node claims in its heartbeat was cut by the stop: it goes back
    to the queue with a fresh message and the attempt given back, since an operator's stop is
    nobody's failure (no forfeit, no rating, no attempt used up). A match another live node plays
    is left alone. The stopped nodes' heartbeat rows go too: they play nothing any more.
    """
    host = socket.gethostname()
    ours = nodes_of_processes(pids=worker_pids, host=host) if worker_pids else []
    claimed = matches_claimed_by_other_nodes(besides=ours)
    running = Match.objects.filter(status=Match.Status.RUNNING).exclude(pk__in=claimed)
    requeued = 0
    for match_id in list(running.values_list("pk", flat=True)):
        with transaction.atomic():
            match = match_lock(match_id=match_id)
            if match is None or match.status != Match.Status.RUNNING:
                continue
            match_set_status(
                match=match,
                status=Match.Status.QUEUED,
                attempts=max(0, match.attempts - 1),
                error=(
                    "the platform was stopped while this match was played; it is played again "
                    "from the start (nobody forfeits, nothing is rated twice)"
                ),
            )
            # Sent inside the transaction: if the broker cannot take it, the match stays running
            # and the next start hands it back. No worker of this run is there to take it early.
            match_enqueue(match.pk)
            requeued += 1
        logger.warning("match %s was cut by a stop: queued again", match_id)
    for node in ours:
        heartbeat_remove(hostname=node)
    return requeued

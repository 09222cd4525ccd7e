"""Reads for matches: who may see what, the API's shapes, the log with owner-only parts.

Every read path (API, pages, log download) goes through ``match_as_dict`` and ``match_log``:
everyone but a seat's owner gets that seat in the game's public view (``visibility``), during
and after the match; staff read everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Count, Prefetch, QuerySet
from django.utils import timezone

from arena.errors import Forbidden, NotFound
from arena.matches import queues, visibility
from arena.matches.logstore import match_log_entries
from arena.matches.models import Match, MatchEvent, Participant
from arena.submissions.models import Submission
from arena.submissions.selectors import is_owner, is_staff
from games.core import LogEntry, MatchSettings, available_game_ids
from games.core.validation import validation_plan


def match_get_visible(*, match_id: int, user: object) -> Match:
    """A match the user may look at: ranked ones are public, training and validation private,
    a tournament's public once its results are published (``public_from``)."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise NotFound(f"no match {match_id}")
    public = match.kind == Match.Kind.RANKED or (
        match.public_from is not None and match.public_from <= timezone.now()
    )
    if not public and not owned_seats(match, user):
        raise Forbidden(PRIVATE_MATCH_TEXT.get(match.kind, PRIVATE_MATCH_TEXT[""]))
    return match


#: Why someone who owns no seat may not open a match, by its kind (the rule that applies to it).
PRIVATE_MATCH_TEXT = {
    Match.Kind.TRAINING: "training matches are visible to their owner only",
    Match.Kind.VALIDATION: (
        "validation matches (an upload playing against itself) are visible to their owner only"
    ),
    Match.Kind.CHALLENGE: (
        "a challenge is visible to the owners of its two agents only (the challenger's and the "
        "challenged agent's)"
    ),
    Match.Kind.TOURNAMENT: (
        "tournament games are visible to their agents' owners only until the tournament's "
        "results are published"
    ),
    "": "this match is visible to the owners of its agents only",
}


def owned_seats(match: Match, user: object) -> set[int]:
    """The seats of ``match`` whose agent belongs to ``user`` (every seat for staff)."""
    return {
        p.seat
        for p in match.participants.select_related("submission__agent")
        if is_owner(user, p.submission)
    }


def match_as_dict(match: Match, user: object = None) -> dict[str, Any]:
    """The API's view of a match as ``user`` may see it (``None``: the public's).

    Seats ``user`` does not own show a neutral ``detail`` and their public round results; a
    platform error's text is shown to owners and staff only, its traceback (``error_trace``: an
    engine's exception may quote the game's hidden state) to staff only.
    """
    participants = list(match.participants.select_related("submission__agent__owner"))
    mine = {p.seat for p in participants if is_owner(user, p.submission)}
    summary, error = match.summary, match.error
    if not mine and match.status == Match.Status.ERROR:
        summary = error = visibility.PUBLIC_PLATFORM_ERROR
    staff_only = {"error_trace": match.error_trace or None} if is_staff(user) else {}
    return {
        "id": match.pk,
        "status": match.status,
        "kind": match.kind,
        "game": match.game,
        "game_version": match.game_version,
        "timed": match.timed,
        "seed": match.seed,
        "summary": summary,
        "duration_s": match.duration_s,
        "error": error,
        "winner_seat": match.winner_seat,
        "participants": [
            {
                "seat": p.seat,
                "submission": p.submission_id,
                "agent_id": p.submission.agent_id,
                "agent": p.submission.label,
                "owner": p.submission.agent.owner.username,
                "outcome": p.outcome or None,
                "reason": p.reason or None,
                "detail": p.detail
                if p.seat in mine
                else visibility.public_detail(p.reason, p.detail),
                "score": p.score,
                "rating_before": p.rating_before,
                "rating_after": p.rating_after,
            }
            for p in participants
        ],
        "rounds": visibility.public_rounds(match.game, match.rounds or [], mine),
        "stats": match.stats,
        **staff_only,
    }


def match_log(
    match: Match,
    user: object,
    *,
    seq: int | None = None,
    after: int | None = None,
    limit: int | None = None,
) -> list[LogEntry]:
    """The per-call log as ``user`` may see it: their own seats as stored, the others in the
    game's public view (no prints, errors, refusal reasons; secrets as the game hides them).

    ``seq`` picks one entry; ``after`` and ``limit`` page through the rest (entries with a
    greater ``seq``, at most ``limit`` of them). Reads the live rows or the stored blob.
    """
    entries = match_log_entries(match)
    selected = entries
    if seq is not None:
        selected = [e for e in selected if e.get("seq") == seq]
    if after is not None:
        selected = [e for e in selected if isinstance(e.get("seq"), int) and e["seq"] > after]
    if limit is not None:
        selected = selected[: max(0, limit)]
    mine = owned_seats(match, user)
    return visibility.public_log(match.game, entries, mine, match.rounds or [], selected=selected)


def latest_ranked_seats(*, submission_id: int, limit: int) -> QuerySet[Participant, int]:
    """The match ids of one submission's newest ``limit`` ranked seats (index
    ``participant_latest``, read backwards)."""
    return (
        Participant.objects.filter(submission_id=submission_id, match__kind=Match.Kind.RANKED)
        .order_by("-match_id")
        .values_list("match_id", flat=True)[:limit]
    )


def latest_ranked_match_ids(
    *, agent_id: int, limit: int = 30, versions: Sequence[int] | None = None
) -> list[int]:
    """The ids of the agent's latest ``limit`` ranked matches (all its versions, or the
    ``versions`` given, a caller that has read them already), newest first.

    Each version's newest ``limit`` seats are read backwards through the seat index
    (``participant_latest``) and stopped there, then merged: the cost follows the agent's
    versions and ``limit``, not its matches or the site's. (One query over all its versions
    would read and sort every seat the agent ever had.) One query where the database combines
    limited reads (PostgreSQL), else one a version.
    """
    if versions is None:
        versions = list(Submission.objects.filter(agent_id=agent_id).values_list("pk", flat=True))
    parts = [latest_ranked_seats(submission_id=v, limit=limit) for v in versions]
    newest: list[int] = []
    if len(parts) > 1 and connection.features.supports_slicing_ordering_in_compound:
        newest = list(parts[0].union(*parts[1:], all=True))
    else:
        for part in parts:
            newest += part
    return sorted(set(newest), reverse=True)[:limit]


def latest_ranked_match_ids_query(
    *, agent_id: int, limit: int = 30, versions: Sequence[int] | None = None
) -> QuerySet[Participant, int] | None:
    """``latest_ranked_match_ids`` as one query to use as a subquery (its ids, unordered once
    inside ``IN``), or None where the database cannot express it: several versions on a
    database without limited reads in a compound query (SQLite). ``versions`` as there."""
    if versions is None:
        versions = list(Submission.objects.filter(agent_id=agent_id).values_list("pk", flat=True))
    parts = [latest_ranked_seats(submission_id=v, limit=limit) for v in versions]
    if not parts:
        return Participant.objects.none().values_list("match_id", flat=True)
    if len(parts) == 1:
        return parts[0]
    if not connection.features.supports_slicing_ordering_in_compound:
        return None
    return parts[0].union(*parts[1:], all=True).order_by("-match_id")[:limit]


#: How many matches a "live now" or "recent" list shows: a bounded query whatever the ladder size.
MATCH_LIST_LIMIT = 10


def ranked_matches(
    *,
    live: bool,
    game: str | None = None,
    agent_id: int | None = None,
    limit: int = MATCH_LIST_LIMIT,
    seats: bool = True,
) -> list[Match]:
    """The latest ranked matches being played (``live``) or finished, of a game or an agent,
    newest first, with their seats (two queries, whatever the limit); ``seats`` False: the
    matches alone (one query), for a list that shows their summaries."""
    matches = Match.objects.filter(kind=Match.Kind.RANKED)
    if live:
        matches = matches.filter(status=Match.Status.RUNNING)
    else:
        matches = matches.filter(status=Match.Status.FINISHED)
    if game is not None:
        matches = matches.filter(game=game)
    if agent_id is not None:
        matches = matches.filter(participants__submission__agent_id=agent_id).distinct()
    if seats:
        with_agents = Participant.objects.select_related("submission__agent__owner").defer(
            "submission__source"
        )
        matches = matches.defer("rounds", "final_state", "stats").prefetch_related(
            Prefetch("participants", queryset=with_agents)
        )
    else:
        # A list of summaries: what its line shows, not the match's configuration and times.
        matches = matches.only("id", "game", "kind", "status", "summary")
    return list(matches.order_by("-id")[:limit])


@dataclass(frozen=True)
class QueueWait:
    """What a queued match waits for: its queue's role and the matches of that queue ahead."""

    role: str
    ahead: int

    @property
    def text(self) -> str:
        """A sentence for the match's page ("queued: 3 matches ahead of it on the ...")."""
        queue = {
            queues.RANKED: "ranked queue",
            queues.TRAINING: "training queue",
            queues.VALIDATION: "validation queue",
        }[self.role]
        if self.ahead == 0:
            return f"queued: next on the {queue}, waiting for a free worker slot"
        matches = "match" if self.ahead == 1 else "matches"
        return f"queued: {self.ahead} {matches} ahead of it on the {queue}"


def match_queue_wait(match: Match) -> QueueWait | None:
    """For a queued match: the matches of its queue sent before it that still wait (one
    counting query, served by the ``(kind, status)`` index); None once it runs or ended."""
    if match.status != Match.Status.QUEUED:
        return None
    role = queues.role_of_kind(match.kind)
    kinds = [kind for kind in Match.Kind.values if queues.role_of_kind(kind) == role]
    ahead = Match.objects.filter(
        kind__in=kinds, status=Match.Status.QUEUED, pk__lt=match.pk
    ).count()
    return QueueWait(role=role, ahead=ahead)


#: The calls an agent answers, in the order a match makes them.
LIFECYCLE = ("on_match_start", "on_round_start", "on_turn", "on_round_end", "on_match_end")


@dataclass(frozen=True)
class MatchProgress:
    """How far a match has got, from its stored events (one query)."""

    #: ``on_turn`` calls made so far (retries after an illegal action included).
    turn_calls: int
    #: The referee's turn cap of this match, if any (validation).
    max_turns: int | None
    #: Lifecycle methods called so far, in lifecycle order.
    calls_seen: tuple[str, ...]

    @property
    def text(self) -> str:
        turns = f"{self.turn_calls} turn{'s' if self.turn_calls != 1 else ''} played"
        if self.max_turns is not None:
            turns += f" (at most {self.max_turns})"
        seen = ", ".join(self.calls_seen) or "none yet"
        return f"{turns}; calls answered so far: {seen}"


def match_progress(match: Match) -> MatchProgress | None:
    """Turns played and lifecycle calls seen so far (the events stored while it runs), or None
    once the match is over.

    The match is read again after its events: a match that finished after the caller read it
    has had its events packed into its log (``logstore.match_log_archive``), and counting them
    then would show a running match with nothing played. Its finish is committed before that
    archive, so a match still running after the count was counted with all its events.
    """
    counts = dict(
        MatchEvent.objects.filter(match=match)
        .values_list("data__method")
        .annotate(n=Count("pk"))
        .order_by()
        .values_list("data__method", "n")
    )
    max_turns = (
        validation_plan(match.game).max_turns if match.kind == Match.Kind.VALIDATION else None
    )
    if Match.objects.filter(pk=match.pk).done().exists():
        return None
    return MatchProgress(
        turn_calls=int(counts.get("on_turn", 0)),
        max_turns=max_turns,
        calls_seen=tuple(m for m in LIFECYCLE if counts.get(m)),
    )


@dataclass(frozen=True)
class ValidationBound:
    """A game's validation match and the longest it takes (the upload page; docs/using.md,
    "Validation")."""

    game: str
    max_turns: int
    rounds: int
    bound_s: float


def validation_bounds(*, game: str | None = None) -> list[ValidationBound]:
    """Each game's (or one game's) validation: turn cap, rounds and time bound with the
    platform's turn budget (``ARENA_TURN_TIMEOUT_S``), for an agent that plays legally and
    uses its whole budget on every call."""
    turn_settings = MatchSettings(turn_timeout_s=settings.ARENA_TURN_TIMEOUT_S)
    bounds = []
    for game_id in [game] if game else available_game_ids():
        plan = validation_plan(game_id)
        bounds.append(
            ValidationBound(
                game=game_id,
                max_turns=plan.max_turns,
                rounds=plan.rounds,
                bound_s=plan.bound_s(turn_settings),
            )
        )
    return bounds


def matches_running_among(*, match_ids: Iterable[int], task_ids: Iterable[str]) -> list[int]:
    """Those of ``match_ids`` that run now under one of ``task_ids``: a worker's list of what it
    plays, checked against the matches themselves (a finished match, or one another task took
    over, is not running here whatever the worker's bookkeeping still holds)."""
    ids = list(match_ids)
    if not ids:
        return []
    return sorted(
        Match.objects.filter(
            pk__in=ids, status=Match.Status.RUNNING, task_id__in=[t[:64] for t in task_ids]
        ).values_list("pk", flat=True)
    )


def match_find(*, match_id: int | None) -> Match | None:
    """The match of that id, or ``None`` (no id, or deleted): for a page that shows it if any."""
    return Match.objects.filter(pk=match_id).first() if match_id else None


def trainings_of(*, submission_id: int, limit: int = 10) -> QuerySet[Match]:
    """The training matches the submission requested (it sits in seat 0), newest first."""
    return Match.objects.filter(
        kind=Match.Kind.TRAINING, participants__submission_id=submission_id, participants__seat=0
    ).order_by("-id")[:limit]

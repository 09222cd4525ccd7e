"""Reads for matches: who may see what, the API's shapes, the log with owner-only parts.

Every read path (API, pages, log download) goes through ``match_as_dict`` and ``match_log``:
everyone but a seat's owner gets that seat in the game's public view (``visibility``), during
and after the match; staff read everything.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet

from arena.errors import Forbidden, NotFound
from arena.matches import visibility
from arena.matches.logstore import match_log_entries
from arena.matches.models import Match, Participant
from arena.submissions.models import Submission
from arena.submissions.selectors import is_owner


def match_get_visible(*, match_id: int, user: object) -> Match:
    """A match the user may look at: ranked ones are public, training and validation private."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise NotFound(f"no match {match_id}")
    if match.kind != Match.Kind.RANKED and not owned_seats(match, user):
        raise Forbidden("training and validation matches are visible to their owner only")
    return match


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
    platform error's text is shown to owners and staff only.
    """
    participants = list(match.participants.select_related("submission__agent__owner"))
    mine = {p.seat for p in participants if is_owner(user, p.submission)}
    summary, error = match.summary, match.error
    if not mine and match.status == Match.Status.ERROR:
        summary = error = visibility.PUBLIC_PLATFORM_ERROR
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
    }


def match_log(
    match: Match,
    user: object,
    *,
    seq: int | None = None,
    after: int | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
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


def ranked_matches_of_agent(*, agent_id: int, limit: int = 30) -> list[Match]:
    """The agent's latest ranked matches (all its versions), newest first, seats prefetched.

    The ids come from each version's seats in turn (index ``participant_latest``: the newest
    ``limit`` ranked seats of one submission, read backwards and stopped there), merged here:
    the cost follows the agent's versions and ``limit``, not its matches or the site's. (One
    query over all its versions would read and sort every seat the agent ever had.)
    """
    versions = Submission.objects.filter(agent_id=agent_id).values_list("pk", flat=True)
    newest: list[int] = []
    for submission_id in versions:
        newest += (
            Participant.objects.filter(submission_id=submission_id, match__kind=Match.Kind.RANKED)
            .order_by("-match_id")
            .values_list("match_id", flat=True)[:limit]
        )
    ids = sorted(set(newest), reverse=True)[:limit]
    seats = Participant.objects.select_related("submission__agent__owner").defer(
        "submission__source"
    )
    return list(
        Match.objects.filter(pk__in=ids)
        .defer("rounds", "final_state")
        .prefetch_related(Prefetch("participants", queryset=seats))
        .order_by("-id")
    )


#: How many matches a "live now" or "recent" list shows: a bounded query whatever the ladder size.
MATCH_LIST_LIMIT = 10


def ranked_matches(
    *,
    live: bool,
    game: str | None = None,
    agent_id: int | None = None,
    limit: int = MATCH_LIST_LIMIT,
) -> list[Match]:
    """The latest ranked matches being played (``live``) or finished, of a game or an agent,
    newest first, with their seats (two queries, whatever the limit)."""
    matches = Match.objects.filter(kind=Match.Kind.RANKED)
    if live:
        matches = matches.filter(status=Match.Status.RUNNING)
    else:
        matches = matches.filter(status=Match.Status.FINISHED)
    if game is not None:
        matches = matches.filter(game=game)
    if agent_id is not None:
        matches = matches.filter(participants__submission__agent_id=agent_id).distinct()
    seats = Participant.objects.select_related("submission__agent__owner").defer(
        "submission__source"
    )
    return list(
        matches.defer("rounds", "final_state", "stats")
        .prefetch_related(Prefetch("participants", queryset=seats))
        .order_by("-id")[:limit]
    )

"""Reads for matches: who may see what, the API's shapes, the log with owner-only parts."""

from __future__ import annotations

from typing import Any

from arena.errors import Forbidden, NotFound
from arena.matches.models import Match, MatchEvent
from arena.submissions.selectors import is_owner

#: Log fields only the owner of the seat sees (DESIGN.md §2: prints, errors, illegal reasons).
PRIVATE_FIELDS = ("stdout", "error", "illegal")
#: Also hidden from others while the match runs: the state a seat was sent holds its secrets
#: (cards, dice, a passcode) and must not leak to a watching opponent before the end.
LIVE_PRIVATE_FIELDS = ("payload", "reply")


def match_get_visible(*, match_id: int, user: object) -> Match:
    """A match the user may look at: ranked ones are public, training and validation private."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise NotFound(f"no match {match_id}")
    if match.kind != Match.Kind.RANKED and not owned_seats(match, user):
        raise Forbidden("training and validation matches are visible to their owner only")
    return match


def owned_seats(match: Match, user: object) -> set[int]:
    """The seats of ``match`` whose agent belongs to ``user``."""
    return {
        p.seat
        for p in match.participants.select_related("submission__agent")
        if is_owner(user, p.submission)
    }


def match_as_dict(match: Match) -> dict[str, Any]:
    """The API's view of a match."""
    return {
        "id": match.pk,
        "status": match.status,
        "kind": match.kind,
        "game": match.game,
        "game_version": match.game_version,
        "timed": match.timed,
        "seed": match.seed,
        "summary": match.summary,
        "duration_s": match.duration_s,
        "error": match.error,
        "winner_seat": match.winner_seat,
        "participants": [
            {
                "seat": p.seat,
                "submission": p.submission_id,
                "agent": p.submission.label,
                "owner": p.submission.agent.owner.username,
                "outcome": p.outcome or None,
                "reason": p.reason or None,
                "detail": p.detail,
                "score": p.score,
                "rating_before": p.rating_before,
                "rating_after": p.rating_after,
            }
            for p in match.participants.select_related("submission__agent__owner")
        ],
        "rounds": match.rounds,
        "stats": match.stats,
    }


def match_log(match: Match, user: object, *, seq: int | None = None) -> list[dict[str, Any]]:
    """The per-call log (or its entry ``seq``), with prints, errors and illegal reasons kept only
    for the user's seats."""
    mine = owned_seats(match, user)
    entries = []
    events = MatchEvent.objects.filter(match=match)
    if seq is not None:
        events = events.filter(seq=seq)
    for data in events.values_list("data", flat=True):
        entry = dict(data)
        if entry.get("seat") not in mine:
            hidden = PRIVATE_FIELDS if match.is_done else PRIVATE_FIELDS + LIVE_PRIVATE_FIELDS
            for key in hidden:
                if entry.get(key):
                    entry[key] = None
        entries.append(entry)
    return entries

"""Why an entry is (or is not) playing a ranked match now: the agent page, the submission page
and ``GET /api/submissions/{id}`` (field ``ladder``) say it in words.

The caller passes the entry's ranked match in flight (``ladder_wait(flight=...)``): read for
one submission (``ranked_flight_of``), or read with a page's versions in the same query (the
``ranked_flight`` annotations, then ``annotated_flight``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Exists, OuterRef, QuerySet, Subquery
from django.utils import timezone

from arena.matches.models import Match, Participant
from arena.matches.selectors import match_queue_wait
from arena.ratings import ladder
from arena.ratings.models import Rating
from arena.ratings.pairing import Entry, may_meet, rematch_wait_s
from arena.ratings.selectors import cached_rating
from arena.submissions.models import Submission
from games.core.ranking import ELO_START

#: How many candidate opponents ``ladder_wait`` reads at most (free ones first): enough to
#: find one that may be met at once on any ladder where one exists but a few.
WAIT_CANDIDATES = 50


@dataclass(frozen=True)
class LadderWait:
    """Why an entry is not playing a ranked match now, in words for its owner and the API.

    ``state``: ``inactive``, ``playing``, ``queued``, ``next-pass``, ``rematch-cooldown``,
    ``opponents-busy`` or ``no-opponent``; ``paused`` (an auto-pause took it off the ladder:
    ``competitions.selectors.ladder_state``).
    """

    state: str
    text: str
    match_id: int | None = None
    #: When a rematch becomes allowed (``rematch-cooldown``).
    until: datetime | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "text": self.text,
            "match": self.match_id,
            "until": self.until.isoformat() if self.until else None,
        }


#: An entry that is not on its ladder (inactive, or not accepted).
INACTIVE = LadderWait("inactive", "not active: it plays no ranked match until activated")


def on_ladder(submission: Submission) -> bool:
    """Whether ``submission`` takes part in matchmaking (active and accepted)."""
    return submission.active and submission.status == Submission.Status.ACCEPTED


def _ranked_in_flight() -> QuerySet[Match]:
    return Match.objects.in_flight().filter(kind=Match.Kind.RANKED).order_by("id")


def ranked_flight_of(submission: Submission) -> Match | None:
    """The first ranked match of ``submission`` in flight (queued or running), if any: one
    query."""
    return (
        _ranked_in_flight()
        .filter(participants__submission=submission)
        .only("id", "kind", "status")
        .first()
    )


def ranked_flight() -> dict[str, Subquery]:
    """Annotations of a submission queryset with its first ranked match in flight:
    ``ranked_flight_id`` and ``ranked_flight_status`` (both empty when none). A page that reads
    the versions anyway reads their matches in flight in the same query; ``annotated_flight``
    reads them back."""
    flight = _ranked_in_flight().filter(participants__submission=OuterRef("pk"))
    return {
        "ranked_flight_id": Subquery(flight.values("id")[:1]),
        "ranked_flight_status": Subquery(flight.values("status")[:1]),
    }


def annotated_flight(submission: Submission) -> Match | None:
    """The ranked match in flight of a submission read with the ``ranked_flight``
    annotations (an unsaved ``Match`` holding what ``ladder_wait`` reads of it)."""
    try:
        flight_id = submission.ranked_flight_id  # type: ignore[attr-defined]
        status = submission.ranked_flight_status  # type: ignore[attr-defined]
    except AttributeError:
        raise TypeError(
            f"submission {submission.pk} was read without the ranked_flight() annotations"
        ) from None
    if flight_id is None:
        return None
    return Match(id=flight_id, kind=Match.Kind.RANKED, status=str(status or ""))


def ladder_wait(*, submission: Submission, flight: Match | None) -> LadderWait:
    """Why ``submission`` is (or is not) waiting on its ladder, by the rules of
    ``pairing.pair_entries``, given ``flight``, its ranked match in flight (None: none). A few
    queries whatever the size of the ladder: the queue ahead of its match in flight, or up to
    ``WAIT_CANDIDATES`` free possible opponents and whether any busy one exists when none is
    free."""
    if not on_ladder(submission):
        return INACTIVE
    if flight is not None and flight.status == Match.Status.RUNNING:
        return LadderWait("playing", f"in a ranked match now (#{flight.pk})", flight.pk)
    if flight is not None:
        wait = match_queue_wait(flight)
        ahead = wait.ahead if wait else 0
        matches = "match" if ahead == 1 else "matches"
        return LadderWait(
            "queued",
            f"ranked match #{flight.pk} queued behind {ahead} {matches}",
            flight.pk,
        )
    game, version = submission.agent.game, submission.game_version
    now = timezone.now()
    known, mine = cached_rating(submission)
    if not known:
        mine = Rating.objects.filter(submission=submission).first()
    me = Entry(
        id=submission.pk,
        owner=submission.agent.owner_id,
        rating=mine.rating if mine else ELO_START,
        opponents=tuple(mine.recent_opponents or ()) if mine else (),
        house=bool(submission.house_bot),
        idle_s=ladder.idle_s(mine.last_played if mine else None, now),
    )
    in_flight = Participant.objects.in_flight().filter(
        submission_id=OuterRef("submission_id"), match__kind=Match.Kind.RANKED
    )
    others = Rating.objects.filter(
        game=game,
        game_version=version,
        submission__active=True,
        submission__status=Submission.Status.ACCEPTED,
    ).exclude(submission=submission)
    if not submission.house_bot:
        others = others.exclude(submission__agent__owner_id=me.owner)
    # Free ones first: up to ``WAIT_CANDIDATES`` of them read in id order (the rating table's
    # key, so the read stops there instead of sorting the whole ladder by "busy"); the busy
    # ones matter only when no free one is left, and then only whether there are any.
    free = list(
        others.filter(~Exists(in_flight))
        .order_by("id")
        .values_list(
            "submission_id",
            "submission__agent__owner_id",
            "submission__house_bot",
            "rating",
            "last_played",
            "recent_opponents",
        )[:WAIT_CANDIDATES]
    )
    cooldown_s = settings.ARENA_REMATCH_COOLDOWN_S
    waits = []
    for sid, owner, house, rating, last_played, opponents in free:
        other = Entry(
            id=sid,
            owner=owner,
            rating=rating,
            opponents=tuple(opponents or ()),
            house=bool(house),
            idle_s=ladder.idle_s(last_played, now),
        )
        if not may_meet(me, other):
            continue
        waits.append(rematch_wait_s(me, other, cooldown_s=cooldown_s))
    interval_s = settings.ARENA_MATCHMAKING_INTERVAL_S
    if any(w <= 0 for w in waits):
        return LadderWait(
            "next-pass",
            f"waiting for the next matchmaking pass (one every {interval_s:g} s)",
        )
    if waits:
        until = now + timedelta(seconds=min(waits))
        return LadderWait(
            "rematch-cooldown",
            (
                "waiting for an opponent: the others are in a match now and the free ones "
                "played you last"
                if others.filter(Exists(in_flight)).exists()
                else "waiting for an opponent: your only possible opponents played you last"
            )
            + f"; a rematch is allowed after {timezone.localtime(until):%H:%M:%S}",
            until=until,
        )
    if free or others.filter(Exists(in_flight)).exists():
        return LadderWait(
            "opponents-busy", "waiting for an opponent: every possible opponent is in a match now"
        )
    return LadderWait(
        "no-opponent",
        "waiting for an opponent: no other owner's agent is active on this ladder yet",
    )

"""Elo once per match, in order, under row locks; and matchmaking (DESIGN.md §7)."""

from __future__ import annotations

import logging
import random
from collections import Counter
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from arena.matches.models import Match, Participant
from arena.matches.services import match_create
from arena.ratings import elo
from arena.ratings.models import Rating, RatingChange
from arena.submissions.models import Submission
from games.core import get_game_spec

logger = logging.getLogger(__name__)

#: Opponents are first looked for within this many points, then the window doubles.
FIRST_WINDOW = 100.0
RECENT = timedelta(hours=24)


def rating_ensure(*, submission: Submission) -> Rating:
    """The submission's ladder row, created at 1200 the first time."""
    rating, _ = Rating.objects.get_or_create(
        submission=submission,
        defaults={"game": submission.agent.game, "game_version": submission.game_version},
    )
    return rating


def rating_apply(*, match: Match) -> None:
    """Apply a finished ranked match to both ratings. Call inside the transaction that locked it.

    Exactly once: ``match.rated`` and the unique (rating, match) change rows are set in the same
    transaction, and a match already rated is skipped. The two rating rows are locked in id
    order, so concurrent matches of one agent serialise instead of losing an update.
    """
    if match.rated or match.kind != Match.Kind.RANKED or match.status != Match.Status.FINISHED:
        return
    seats = list(match.participants.select_related("submission__agent").order_by("seat"))
    if len(seats) != 2:
        raise ValueError(f"the ladder rates two-seat matches; match {match.pk} has {len(seats)}")
    for p in seats:
        rating_ensure(submission=p.submission)
    locked = {
        r.submission_id: r
        for r in Rating.objects.select_for_update()
        .filter(submission_id__in=[p.submission_id for p in seats])
        .order_by("id")
    }
    a, b = (locked[p.submission_id] for p in seats)
    score_a = elo.SCORES[seats[0].outcome]
    new_a, new_b = elo.updated_ratings(
        elo.Standing(a.rating, a.games), elo.Standing(b.rating, b.games), score_a
    )
    for participant, rating, new in ((seats[0], a, new_a), (seats[1], b, new_b)):
        RatingChange.objects.create(rating=rating, match=match, before=rating.rating, after=new)
        participant.rating_before, participant.rating_after = rating.rating, new
        participant.save(update_fields=["rating_before", "rating_after"])
        rating.rating = new
        rating.games += 1
        outcome = participant.outcome
        rating.wins += outcome == "win"
        rating.losses += outcome == "loss"
        rating.draws += outcome == "draw"
        rating.save()
    match.rated = True
    match.save(update_fields=["rated"])


@transaction.atomic
def ratings_recompute(*, game: str, game_version: int) -> int:
    """Rebuild one ladder from the matches that still count, in the order they were applied.

    Elo depends on the path: when an administrator voids a rated match, every later update of
    the agents involved would differ, so the ladder is replayed from 1200 rather than patched.
    Returns how many matches were applied again.
    """
    ratings = list(
        Rating.objects.select_for_update()
        .filter(game=game, game_version=game_version)
        .order_by("id")
    )
    changes = RatingChange.objects.filter(rating__in=ratings)
    applied_order = list(dict.fromkeys(changes.order_by("id").values_list("match_id", flat=True)))
    changes.delete()
    for rating in ratings:
        rating.rating, rating.games, rating.wins, rating.losses, rating.draws = 1200.0, 0, 0, 0, 0
        rating.save()
    Participant.objects.filter(match_id__in=applied_order).update(
        rating_before=None, rating_after=None
    )
    Match.objects.filter(pk__in=applied_order).update(rated=False)
    matches = Match.objects.in_bulk(applied_order)
    replayed = 0
    for match_id in applied_order:
        match = matches[match_id]
        if match.status == Match.Status.FINISHED:
            rating_apply(match=match)
            replayed += 1
    logger.info("recomputed the %s v%s ladder from %d matches", game, game_version, replayed)
    return replayed


def ladder_pair(*, game: str) -> list[Match]:
    """Pair free ladder entries of one game and store their ranked matches (call inside a
    transaction; the matchmaking workflow enqueues them).

    Entries with the fewest recent games go first; each takes the free opponent nearest in
    rating (the window widens when none is near), never one of the same owner, never the one it
    just played, and no entry has two ranked matches in flight.
    """
    version = get_game_spec(game).version
    entries = list(
        Rating.objects.select_for_update()
        .filter(
            game=game,
            game_version=version,
            submission__active=True,
            submission__status=Submission.Status.ACCEPTED,
        )
        .select_related("submission__agent")
        .order_by("id")
    )
    if len(entries) < 2:
        return []
    ids = [e.submission_id for e in entries]
    busy = set(
        Participant.objects.filter(
            submission_id__in=ids,
            match__kind=Match.Kind.RANKED,
            match__status__in=[Match.Status.QUEUED, Match.Status.RUNNING],
        ).values_list("submission_id", flat=True)
    )
    recent = Counter(
        Participant.objects.filter(
            submission_id__in=ids,
            match__kind=Match.Kind.RANKED,
            match__created__gte=timezone.now() - RECENT,
        ).values_list("submission_id", flat=True)
    )
    free = [e for e in entries if e.submission_id not in busy]
    random.shuffle(free)  # ties in recent games are broken at random
    free.sort(key=lambda e: recent[e.submission_id])
    paired: set[int] = set()
    created = []
    for entry in free:
        if entry.submission_id in paired:
            continue
        last = _last_opponent(entry.submission_id)
        candidates = [
            o
            for o in free
            if o.submission_id not in paired
            and o.submission_id != entry.submission_id
            and o.submission.agent.owner_id != entry.submission.agent.owner_id
            and o.submission_id != last
        ]
        opponent = _nearest(entry, candidates, recent)
        if opponent is None:
            continue
        paired.update({entry.submission_id, opponent.submission_id})
        pair = [entry.submission, opponent.submission]
        random.shuffle(pair)  # who sits first alternates by chance
        created.append(match_create(kind=Match.Kind.RANKED, submissions=pair, timed=True))
    return created


def _nearest(entry: Rating, candidates: list[Rating], recent: Counter[int]) -> Rating | None:
    window = FIRST_WINDOW
    while candidates:
        near = [o for o in candidates if abs(o.rating - entry.rating) <= window]
        if near:
            return min(near, key=lambda o: (abs(o.rating - entry.rating), recent[o.submission_id]))
        window *= 2
    return None


def _last_opponent(submission_id: int) -> int | None:
    last = (
        Participant.objects.filter(submission_id=submission_id, match__kind=Match.Kind.RANKED)
        .order_by("-match_id")
        .values_list("match_id", flat=True)
        .first()
    )
    if last is None:
        return None
    return (
        Participant.objects.filter(match_id=last)
        .exclude(submission_id=submission_id)
        .values_list("submission_id", flat=True)
        .first()
    )

"""Writes for matches: create, training requests, admin status changes.

Playing and recording live in ``play.py``, the status machine in ``status.py``, the live log in
``eventlog.py``. Enqueuing and the effects on other apps (Elo, validation) are workflows
(``arena.workflows``): these functions only change the match's own rows.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from django.conf import settings
from django.db import connection

from arena.accounts.models import User
from arena.bulk import insert_copies
from arena.errors import Forbidden, Refused
from arena.matches.models import Match, Participant
from arena.matches.status import match_set_status
from arena.submissions.models import Submission
from arena.submissions.selectors import submission_to_play
from arena.submissions.services import house_submission_ensure
from arena.throttles import hourly_quota_check, user_lock
from games.core import get_game_spec
from games.core.validation import validation_plan


def match_create(
    *,
    kind: str,
    submissions: Sequence[Submission],
    timed: bool = True,
    requested_by: User | None = None,
    seed: int | None = None,
) -> Match:
    """Store a queued match pinning these submissions (seat order); the caller enqueues it."""
    game = submissions[0].agent.game
    if any(s.agent.game != game for s in submissions):
        raise Refused("every seat of a match must play the same game")
    match = Match.objects.create(
        game=game,
        game_version=get_game_spec(game).version,
        kind=kind,
        timed=timed,
        seed=secrets.randbelow(2**31) if seed is None else seed,
        requested_by=requested_by,
        # A validation plays the game's short validation match (games.core.validation).
        config=validation_plan(game).config if kind == Match.Kind.VALIDATION else {},
    )
    Participant.objects.bulk_create(
        Participant(match=match, seat=seat, submission=s) for seat, s in enumerate(submissions)
    )
    return match


def matches_create_ranked(*, game: str, pairs: Sequence[Sequence[int]]) -> list[Match]:
    """Store one queued, timed ranked match of ``game`` per pair of submission ids (seat order
    as given) in a constant number of queries; the caller enqueues them. Matchmaking creates
    hundreds in one pass."""
    if not pairs:
        return []
    template = Match(
        game=game, game_version=get_game_spec(game).version, kind=Match.Kind.RANKED, timed=True
    )
    rows = insert_copies(template, {"seed": [secrets.randbelow(2**31) for _ in pairs]})
    insert_copies(
        Participant(),
        {
            "match": [row[0] for row, pair in zip(rows, pairs, strict=True) for _ in pair],
            "seat": [seat for pair in pairs for seat in range(len(pair))],
            "submission": [submission_id for pair in pairs for submission_id in pair],
        },
    )
    # The matches differ in their seeds alone, so which pair sits in which match is free.
    fields = Match._meta.concrete_fields
    names = [f.attname for f in fields]
    values = [getattr(template, name) for name in names]
    at = {name: i for i, name in enumerate(names)}
    matches = []
    for match_id, seed in rows:
        values[at["id"]], values[at["seed"]] = match_id, seed
        matches.append(Match.from_db(connection.alias, names, values))
    return matches


#: The hourly quota of each kind of match users ask for: the setting that caps it, and what the
#: refusal calls those matches.
REQUESTED_PER_HOUR: dict[str, tuple[str, str]] = {
    Match.Kind.TRAINING: ("ARENA_TRAINING_PER_HOUR", "training matches"),
    Match.Kind.CHALLENGE: ("ARENA_CHALLENGES_PER_HOUR", "challenges"),
}


def requested_quota_check(*, user: User, kind: str) -> None:
    """Refuse (429) a match of ``kind`` that ``user`` asks for over its hourly quota.

    It takes the user's row lock: call it in the transaction that then creates the match, so
    that concurrent requests cannot all see the same count (quotas are atomic).
    """
    setting, what = REQUESTED_PER_HOUR[kind]
    user_lock(user)
    hourly_quota_check(
        recent=Match.objects.filter(kind=kind, requested_by=user),
        limit=getattr(settings, setting),
        what=what,
        field="created",
    )


def training_create(*, user: User, submission_id: int, opponent: str, timed: bool = True) -> Match:
    """An unrated match of the user's accepted submission against a house bot or their own.

    Call inside a transaction; the caller enqueues it (``arena.workflows.matches``).
    """
    submission = submission_to_play(
        submission_id=submission_id,
        user=user,
        purpose="train",
        not_yours="you can only train your own agents",
    )
    game = submission.agent.game
    if str(opponent).startswith("house:"):
        other = house_submission_ensure(game=game, bot=str(opponent).removeprefix("house:"))
    else:
        try:
            other_id = int(opponent)
            if not 0 < other_id < 2**63:
                raise ValueError(other_id)
        except (TypeError, ValueError):
            raise Refused(
                f'opponent {opponent!r}: use "house:<bot>" or the id of one of your submissions'
            ) from None
        found = Submission.objects.select_related("agent").filter(pk=other_id).first()
        if found is None or found.agent.owner_id != user.pk:
            raise Forbidden("you can only train against house bots or your own submissions")
        other = found
        if other.status != Submission.Status.ACCEPTED or other.agent.game != game:
            raise Refused(f"the opponent must be an accepted {game} submission")
    requested_quota_check(user=user, kind=Match.Kind.TRAINING)
    return match_create(
        kind=Match.Kind.TRAINING,
        submissions=[submission, other],
        timed=timed,
        requested_by=user,
    )


def match_requeue(*, match: Match) -> Match:
    """Admin: queue a locked, errored match again (its attempts start over)."""
    return match_set_status(match=match, status=Match.Status.QUEUED, attempts=0, error="")


def match_void_status(*, match: Match, reason: str) -> bool:
    """Mark a locked match as not counting; returns whether it had been rated (its ladder must
    then be recomputed)."""
    if match.status == Match.Status.ERROR:
        return False
    if match.status == Match.Status.QUEUED:
        match_set_status(match=match, status=Match.Status.ERROR, error=reason)
        return False
    if match.status == Match.Status.RUNNING:
        match.status = Match.Status.FINISHED  # let the void path below apply
    was_rated = match.rated
    match_set_status(match=match, status=Match.Status.ERROR, error=reason)
    return was_rated

"""Which Celery queue each kind of work runs in (deploy/README.md, "Queues and worker pools").

Ranked matches, training matches and validations each have their own queue, so a training
match or an upload's validation never waits behind the ladder's house-v-house games; the
periodic maintenance (sweeper, reaper, log upkeep, matchmaking) has its own queue too, so it
keeps its period when every match slot is busy. Every queue name carries the deployment's
``ARENA_INSTANCE_ID``: two instances sharing one Redis never consume each other's tasks.
"""

from __future__ import annotations

from django.conf import settings

from arena.matches.models import Match

#: The queues, by role (the part of the name after the instance identity).
RANKED = "matches"
TRAINING = "training"
VALIDATION = "validation"
#: Matches with a language-model seat: I/O-bound, played by a pool that keeps many calls in
#: flight, so a slow provider never holds a code match's worker (docs/llm-seats.md).
LLM = "llm"
#: Tournament games: the tournament scheduler caps how many wait here (the tournaments' share).
TOURNAMENT = "tournament"
MAINTENANCE = "maintenance"
ROLES = (RANKED, TRAINING, VALIDATION, TOURNAMENT, LLM, MAINTENANCE)

_ROLE_OF_KIND = {
    Match.Kind.RANKED: RANKED,
    Match.Kind.TRAINING: TRAINING,
    Match.Kind.VALIDATION: VALIDATION,
    # Challenges are unrated training against someone else's agent: same queue, same slots.
    Match.Kind.CHALLENGE: TRAINING,
    Match.Kind.TOURNAMENT: TOURNAMENT,
}


def queue_name(role: str) -> str:
    """The broker's name of the queue of ``role`` for this deployment (``<instance>.<role>``,
    ``settings.ARENA_QUEUES``)."""
    if role not in ROLES:
        raise ValueError(f"no queue role {role!r}; the roles: {', '.join(ROLES)}")
    return str(settings.ARENA_QUEUES[role])


def role_of_kind(kind: str) -> str:
    """The queue role of a match of ``kind`` (ranked; training and challenges; validation;
    tournament)."""
    return _ROLE_OF_KIND[Match.Kind(kind)]


def match_queue(match: Match) -> str:
    """The queue the match runs in (``match_role``)."""
    from arena.llm.selectors import model_entrant_ids

    seats = match.participants.values_list("submission_id", flat=True)
    return queue_name(match_role(match.kind, match.game, model_seat=bool(model_entrant_ids(seats))))


def match_role(kind: str, game_id: str, *, model_seat: bool) -> str:
    """The queue role of a match: ``llm`` when a seat is a language model or a model judges the
    game (a validation's judge is scripted: its kind's), else its kind's. A judged match waits on
    its model for minutes; in its kind's pool it would hold a slot every other game needs."""
    if model_seat or (kind != Match.Kind.VALIDATION and _judged(game_id)):
        return LLM
    return role_of_kind(kind)


def _judged(game_id: str) -> bool:
    from games.core.registry import UnknownGameError, is_judged

    try:
        return is_judged(game_id)
    except UnknownGameError:
        return False

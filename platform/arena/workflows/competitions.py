"""Challenges (request → enqueue, fairly), and what follows a recorded match: notifications,
auto-pause, the next waiting challenge (docs/using.md, "Challenges", "Notifications").

``match_effects`` runs inside the transaction that records a match and can never fail it: each
effect runs in its own savepoint and an error is logged, not raised.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import transaction

from arena.accounts.models import User
from arena.competitions.services import (
    challenge_create,
    challenges_release,
    ladder_autopause_check,
)
from arena.matches.models import Match, Participant
from arena.notifications.models import Kind
from arena.notifications.services import notify
from arena.workflows.dispatch import match_enqueue_on_commit

logger = logging.getLogger(__name__)


def safely(what: str, effect: Callable[[], object]) -> None:
    """Run ``effect`` in a savepoint; log (never raise) what goes wrong."""
    try:
        with transaction.atomic():
            effect()
    except Exception:
        logger.exception("%s failed (the match's result is kept)", what)


@transaction.atomic
def challenge_request(*, user: User, submission_id: int, agent_id: int) -> Match:
    """Challenge agent ``agent_id`` with the user's submission: an unrated match, sent now or
    when one of the user's challenges in flight ends; its owner is told."""
    match, send_now = challenge_create(user=user, submission_id=submission_id, agent_id=agent_id)
    if send_now:
        match_enqueue_on_commit(match.pk)
    seats = list(match.participants.select_related("submission__agent__owner"))
    challenger, challenged = seats[0].submission, seats[1].submission
    safely(
        "telling the challenged owner",
        lambda: notify(
            user=challenged.agent.owner,
            kind=Kind.CHALLENGE_RECEIVED,
            subject=f"{user.username} challenged your {challenged.label}",
            body=(
                f"{user.username}'s {challenger.label} challenged your {challenged.label} "
                f"({match.game}); the match is unrated."
            ),
            url=f"/matches/{match.pk}/",
            dedupe_key=f"challenge-received:{match.pk}",
        ),
    )
    return match


def match_effects(*, match: Match) -> None:
    """After ``match`` was recorded or ended in error (inside its transaction): tell who asked
    for it, pause agents that keep forfeiting, release the next waiting challenge."""
    if match.kind == Match.Kind.VALIDATION:
        safely("the validation notification", lambda: _tell_validation(match))
    elif match.kind in (Match.Kind.TRAINING, Match.Kind.CHALLENGE):
        safely("the match notification", lambda: _tell_finished(match))
    elif match.kind == Match.Kind.RANKED:
        safely("auto-pause", lambda: _autopause(match))
    requester_id = match.requested_by_id
    if match.kind == Match.Kind.CHALLENGE and requester_id:
        safely("releasing waiting challenges", lambda: _release(requester_id))


def _release(user_id: int) -> None:
    for match_id in challenges_release(user_id=user_id):
        match_enqueue_on_commit(match_id)


def _tell_validation(match: Match) -> None:
    seat = Participant.objects.select_related("submission__agent__owner").get(match=match, seat=0)
    submission = seat.submission
    if submission.status == submission.Status.PENDING:
        if match.status != Match.Status.ERROR:
            return  # the platform failed it and it is being tried again: nothing to tell yet
        verdict = "could not be validated (not your agent's fault)"
    else:
        verdict = f"was {submission.status}"
    notify(
        user=submission.agent.owner,
        kind=Kind.VALIDATION,
        subject=f"{submission.label} {verdict}",
        body=submission.status_detail,
        url=f"/submissions/{submission.pk}/",
        dedupe_key=f"validation:{submission.pk}",
    )


def _tell_finished(match: Match) -> None:
    if match.requested_by is None:
        return
    seats = list(match.participants.select_related("submission__agent").order_by("seat"))
    mine = seats[0]
    names = " v ".join(p.submission.label for p in seats)
    if match.status == Match.Status.ERROR:
        outcome = "could not be played (a platform error, no agent's fault)"
    else:
        outcome = f"{mine.submission.label}: {mine.outcome or 'no result'}"
    notify(
        user=match.requested_by,
        kind=Kind.MATCH_FINISHED,
        subject=f"{match.kind} match {names} finished",
        body=f"{outcome}. {match.summary if match.status == Match.Status.FINISHED else ''}",
        url=f"/matches/{match.pk}/",
        dedupe_key=f"match-finished:{match.pk}",
    )


def _autopause(match: Match) -> None:
    for pause in ladder_autopause_check(match=match):
        submission = pause.submission
        matches = ", ".join(f"#{m}" for m in pause.match_ids)
        notify(
            user=submission.agent.owner,
            kind=Kind.AGENT_PAUSED,
            subject=f"{submission.label} was taken off the ladder",
            body=f"{pause.reason}\nThe matches: {matches}.",
            url=f"/submissions/agents/{submission.agent_id}/",
            dedupe_key=f"paused:{pause.pk}",
        )

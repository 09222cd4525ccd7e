"""Reads for agents and submissions, with the owner-only rules in one place."""

from __future__ import annotations

from django.db.models import Max, QuerySet

from arena.accounts.models import User
from arena.errors import Forbidden, NotFound, Refused
from arena.submissions.models import Agent, Submission


def is_staff(user: object) -> bool:
    """True for a signed-in staff member (they read everything, tracebacks included)."""
    return bool(getattr(user, "pk", None)) and bool(getattr(user, "is_staff", False))


def is_owner(user: object, submission: Submission) -> bool:
    """True for the submission's owner (and staff)."""
    user_id = getattr(user, "pk", None)
    return bool(user_id) and (submission.agent.owner_id == user_id or is_staff(user))


def submission_get(*, submission_id: int) -> Submission:
    """A submission or ``NotFound``."""
    submission = (
        Submission.objects.select_related("agent__owner", "rating").filter(pk=submission_id).first()
    )
    if submission is None:
        raise NotFound(f"no submission {submission_id}")
    return submission


def submission_get_owned(*, submission_id: int, user: object) -> Submission:
    """A submission the user owns, else ``Forbidden`` (its source and logs are private)."""
    submission = submission_get(submission_id=submission_id)
    if not is_owner(user, submission):
        raise Forbidden("this submission belongs to someone else: its source and logs are private")
    return submission


def submission_to_play(
    *, submission_id: int, user: User, purpose: str, not_yours: str
) -> Submission:
    """The user's own accepted submission, to play a match they ask for (``purpose``: what it
    is to do, e.g. "train"). ``NotFound``; ``Forbidden`` (``not_yours``) for someone else's,
    staff included; ``Refused`` until it is accepted."""
    submission = submission_get(submission_id=submission_id)
    if submission.agent.owner_id != user.pk:
        raise Forbidden(not_yours)
    if submission.status != Submission.Status.ACCEPTED:
        raise Refused(f"only accepted submissions can {purpose}; this one is {submission.status}")
    return submission


def submissions_of(*, user: object, archived: bool | None = None) -> QuerySet[Submission]:
    """The user's submissions, newest first, with their ladder rating when they have one;
    ``archived`` keeps only those of archived (``True``) or current (``False``) agents."""
    found = Submission.objects.filter(agent__owner_id=getattr(user, "pk", None))
    if archived is not None:
        found = found.filter(agent__archived__isnull=not archived)
    return found.select_related("agent", "rating")


def submissions_page(
    *, user: object, game: str = "", before: int | None = None, limit: int = 25
) -> tuple[list[dict[str, object]], int | None]:
    """One page of the user's submissions as the API shows them, newest first, and the id to
    pass as ``before`` for the next (older) page (None on the last): two queries however long
    the page (the submissions, then their self-play matches)."""
    found = submissions_of(user=user).order_by("-pk")
    if game:
        found = found.filter(agent__game=game)
    if before is not None:
        found = found.filter(pk__lt=before)
    rows = list(found[: limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    validation = dict(
        Submission.objects.filter(pk__in=[s.pk for s in rows], seats__match__kind="validation")
        .annotate(last=Max("seats__match_id"))
        .values_list("pk", "last")
    )
    page = [
        {**submission_as_dict(s, validation_match=validation.get(s.pk)), "ladder": None}
        for s in rows
    ]
    return page, rows[-1].pk if more and rows else None


def archived_agents_count(*, user: object) -> int:
    """How many of the user's agents are archived."""
    return Agent.objects.filter(owner_id=getattr(user, "pk", None), archived__isnull=False).count()


def agent_get(*, agent_id: int, with_policy: bool = False) -> Agent:
    """An agent or ``NotFound``; ``with_policy``: with its challenge settings in the same read
    (``competitions.services.challenge_policy_get``)."""
    related = ("owner", "challenge_policy") if with_policy else ("owner",)
    agent = Agent.objects.select_related(*related).filter(pk=agent_id).first()
    if agent is None:
        raise NotFound(f"no agent {agent_id}")
    return agent


#: ``submission_as_dict``'s default: look the self-play match up.
_LOOK_UP = object()


def submission_as_dict(
    submission: Submission, *, validation_match: int | None | object = _LOOK_UP
) -> dict[str, object]:
    """The API's view of a submission; ``validation_match`` when the caller read it already."""
    return {
        "id": submission.pk,
        "agent": submission.agent.name,
        "agent_id": submission.agent_id,
        "game": submission.agent.game,
        "version": submission.version,
        "status": submission.status,
        "detail": submission.status_detail,
        "active": submission.active,
        "sha256": submission.sha256,
        "errors": [],
        "validation_match": submission_validation_match_id(submission)
        if validation_match is _LOOK_UP
        else validation_match,
        "rating": _rating_as_dict(submission),
    }


def _rating_as_dict(submission: Submission) -> dict[str, object] | None:
    """The version's ladder rating with its 95 % interval, as the leaderboard shows it (and,
    where the game ranks by payoff, its mean payoff with its interval); None before its first
    rated game."""
    rating = getattr(submission, "rating", None)  # None: no row (a reverse one-to-one)
    if rating is None or not rating.games:
        return None
    return {
        "rating": round(rating.rating, 1),
        "rating_low": round(rating.rating_low, 1),
        "rating_high": round(rating.rating_high, 1),
        "games": rating.games,
        "wins": rating.wins,
        "losses": rating.losses,
        "draws": rating.draws,
        "mean_payoff": None if rating.mean_payoff is None else round(rating.mean_payoff, 2),
        "payoff_low": None if rating.payoff_low is None else round(rating.payoff_low, 2),
        "payoff_high": None if rating.payoff_high is None else round(rating.payoff_high, 2),
    }


def submission_validation_match_id(submission: Submission) -> int | None:
    """The id of the submission's self-play match (through its seats: matches sit above)."""
    return (
        submission.seats.filter(match__kind="validation")
        .order_by("-match_id")
        .values_list("match_id", flat=True)
        .first()
    )


def submissions_accepted_of(*, user: User, game: str) -> QuerySet[Submission]:
    """The user's accepted submissions of ``game`` (with their agents), by agent then newest:
    what they may enter in a training match or a challenge."""
    return (
        Submission.objects.filter(
            agent__owner=user, agent__game=game, status=Submission.Status.ACCEPTED
        )
        .select_related("agent")
        .order_by("agent__name", "-version")
    )

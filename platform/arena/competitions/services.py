"""Writes for challenges and auto-pause (docs/using.md, "Challenges", "Notifications").

A challenge is an unrated match of a user's accepted submission against another user's public
agent, counted against ``ARENA_CHALLENGES_PER_HOUR`` under the user's row lock. At most
``ARENA_CHALLENGES_IN_FLIGHT`` of one user's challenges are sent to the workers at once; the
rest wait (queued, not yet sent) and are released as earlier ones end, so one user's burst takes
its turn on the training queue beside everyone else's training.
"""

from __future__ import annotations

from collections import Counter

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from arena.accounts.models import User
from arena.competitions.models import ChallengePolicy, LadderPause
from arena.errors import Forbidden, NotFound, Refused
from arena.matches.models import Match, Participant
from arena.matches.services import match_create, requested_quota_check
from arena.ratings.models import Rating
from arena.submissions.models import Agent, Submission
from arena.submissions.selectors import submission_to_play
from arena.throttles import user_lock
from games.core.record import reason_text

#: The forfeits that count towards auto-pause (a crash at start is a crash).
FORFEIT_REASONS = ("crash", "timeout", "illegal", "init_error")


def challenge_policy_get(*, agent: Agent) -> ChallengePolicy:
    """The agent's challenge settings (defaults, unsaved, when it has none); no query when the
    agent was read with them (``agent_get(..., with_policy=True)``)."""
    if Agent.challenge_policy.is_cached(agent):
        try:
            return agent.challenge_policy
        except ChallengePolicy.DoesNotExist:
            return ChallengePolicy(agent=agent)
    return ChallengePolicy.objects.filter(agent=agent).first() or ChallengePolicy(agent=agent)


def challenge_policy_set(
    *, agent: Agent, user: User, accepts: bool, min_rating: float | None
) -> ChallengePolicy:
    """Set whether ``agent`` accepts challenges and the challengers' minimum rating."""
    if agent.owner_id != user.pk:
        raise Forbidden("only the agent's owner can change whether it accepts challenges")
    if min_rating is not None and not -10_000 <= min_rating <= 10_000:
        raise Refused("the minimum rating must be between -10000 and 10000 (or empty for any)")
    policy, _ = ChallengePolicy.objects.update_or_create(
        agent=agent, defaults={"accepts": accepts, "min_rating": min_rating}
    )
    return policy


def challenge_target(*, agent: Agent) -> Submission | None:
    """The version of ``agent`` a challenge plays: its active accepted one, else its newest
    accepted one."""
    return (
        agent.submissions.filter(status=Submission.Status.ACCEPTED)
        .select_related("agent__owner")
        .order_by("-active", "-version")
        .first()
    )


def challenge_create(*, user: User, submission_id: int, agent_id: int) -> tuple[Match, bool]:
    """Store a challenge of the user's accepted submission against agent ``agent_id``.

    Returns the match and whether to send it now (else it waits for one of the user's
    challenges in flight to end). Call inside a transaction; the caller enqueues it.
    Raises ``NotFound``, ``Forbidden``, ``Refused`` with what to do, ``RateLimited`` over quota.
    """
    mine = submission_to_play(
        submission_id=submission_id,
        user=user,
        purpose="challenge",
        not_yours="you can only challenge with one of your own submissions",
    )
    agent = Agent.objects.select_related("owner").filter(pk=agent_id).first()
    if agent is None:
        raise NotFound(f"no agent {agent_id}")
    if agent.owner_id == user.pk:
        raise Refused(
            "that agent is yours: play your own agents against each other with a training match"
        )
    if agent.game != mine.agent.game:
        raise Refused(
            f"{agent.name} plays {agent.game} and your {mine.label} plays {mine.agent.game}: "
            "challenge with an agent of the same game"
        )
    policy = challenge_policy_get(agent=agent)
    if not policy.accepts:
        raise Forbidden(f"the owner of {agent.name} does not accept challenges")
    if policy.min_rating is not None:
        rating = Rating.objects.filter(submission=mine).values_list("rating", flat=True).first()
        if rating is None or rating < policy.min_rating:
            have = "no rating yet" if rating is None else f"a rating of {rating:.0f}"
            raise Forbidden(
                f"{agent.name} accepts challenges only from agents rated {policy.min_rating:.0f} "
                f"or more; your {mine.label} has {have} (play ranked matches to raise it)"
            )
    theirs = challenge_target(agent=agent)
    if theirs is None:
        raise Refused(f"{agent.name} has no accepted version to play yet")
    # Count, decide and insert under the user's row lock: concurrent requests queue up.
    requested_quota_check(user=user, kind=Match.Kind.CHALLENGE)
    send_now = challenges_in_flight(user=user) < settings.ARENA_CHALLENGES_IN_FLIGHT
    match = match_create(
        kind=Match.Kind.CHALLENGE, submissions=[mine, theirs], timed=True, requested_by=user
    )
    if send_now:
        # Marked as sent inside the transaction, so the next request counts it at once.
        Match.objects.filter(pk=match.pk).update(enqueued=timezone.now())
    return match, send_now


def _unfinished_challenges(user: User | int) -> QuerySet[Match]:
    return Match.objects.in_flight().filter(kind=Match.Kind.CHALLENGE, requested_by=user)


def challenges_in_flight(*, user: User | int) -> int:
    """The user's challenges sent to the workers and not over yet."""
    return _unfinished_challenges(user).filter(enqueued__isnull=False).count()


def challenges_release(*, user_id: int) -> list[int]:
    """The ids of the user's waiting challenges that may now be sent (oldest first), marked as
    sent. Call inside a transaction; the caller enqueues them."""
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        return []
    user_lock(user)
    free = settings.ARENA_CHALLENGES_IN_FLIGHT - challenges_in_flight(user=user)
    if free <= 0:
        return []
    ids = list(
        _unfinished_challenges(user)
        .filter(enqueued__isnull=True)
        .order_by("id")
        .values_list("pk", flat=True)[:free]
    )
    Match.objects.filter(pk__in=ids).update(enqueued=timezone.now())
    return ids


def ladder_autopause_check(*, match: Match) -> list[LadderPause]:
    """After a ranked match is recorded: take off the ladder every seat's submission whose
    last ``ARENA_AUTOPAUSE_FORFEITS`` ranked matches (since its last pause) were all forfeits by
    crash, timeout or illegal moves. Returns the pauses made."""
    limit = settings.ARENA_AUTOPAUSE_FORFEITS
    if limit <= 0 or match.kind != Match.Kind.RANKED:
        return []
    pauses = []
    seats = Participant.objects.filter(match=match, reason__in=FORFEIT_REASONS).select_related(
        "submission__agent"
    )
    for seat in seats:
        submission = seat.submission
        if not submission.active or submission.house_bot:
            continue
        recent = Participant.objects.filter(
            submission=submission,
            match__kind=Match.Kind.RANKED,
            match__status=Match.Status.FINISHED,
        )
        last = LadderPause.objects.filter(submission=submission).first()
        if last is not None and last.match_ids:
            recent = recent.filter(match_id__gt=max(last.match_ids))
        rows = list(recent.order_by("-match_id").values_list("match_id", "reason")[:limit])
        if len(rows) < limit or any(r not in FORFEIT_REASONS for _, r in rows):
            continue
        counts = Counter(r for _, r in rows)
        causes = ", ".join(f"{n} × {reason_text(r)}" for r, n in counts.most_common())
        Submission.objects.filter(pk=submission.pk).update(active=False)
        submission.active = False
        pauses.append(
            LadderPause.objects.create(
                submission=submission,
                reason=(
                    f"{submission.label} forfeited its last {limit} ranked matches in a row "
                    f"({causes}), so it was taken off the ladder. Fix it (its matches show what "
                    "went wrong) and upload a new version, or put this one back on the ladder."
                ),
                match_ids=[m for m, _ in rows],
            )
        )
    return pauses


def ladder_pauses_clear(*, submission: Submission) -> None:
    """The owner put the submission back on the ladder: its pauses are history."""
    LadderPause.objects.filter(submission=submission, cleared__isnull=True).update(
        cleared=timezone.now()
    )

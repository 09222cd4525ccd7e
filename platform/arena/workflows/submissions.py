"""Upload → validate, and activation → ladder entry."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from arena.accounts.models import User
from arena.accounts.services import upload_allowed_check
from arena.competitions.services import ladder_pauses_clear
from arena.errors import Refused
from arena.llm.judging import judge_status
from arena.llm.selectors import model_entrant_of
from arena.llm.services import agent_model_policy_set, model_budget_refusal
from arena.matches.models import Match
from arena.ratings.services import rating_ensure
from arena.submissions import services as submission_services
from arena.submissions.models import Submission
from arena.throttles import hourly_quota_check, in_flight_check, user_lock
from arena.workflows.dispatch import match_schedule
from games.core import MatchRecord
from games.core.record import reason_text


def upload_throttle_check(*, owner: User) -> None:
    """Refuse (429) an upload over ``ARENA_UPLOADS_PER_HOUR`` or ``ARENA_VALIDATIONS_IN_FLIGHT``.

    Call inside the transaction that creates the submission: it takes the user's row lock.
    """
    user_lock(owner)
    hourly_quota_check(
        recent=Submission.objects.filter(agent__owner=owner),
        limit=settings.ARENA_UPLOADS_PER_HOUR,
        what="uploads",
        field="created",
    )
    in_flight = (
        Match.objects.in_flight()
        .filter(
            kind=Match.Kind.VALIDATION,
            participants__seat=0,
            participants__submission__agent__owner=owner,
        )
        .distinct()
        .count()
    )
    in_flight_check(
        in_flight=in_flight,
        limit=settings.ARENA_VALIDATIONS_IN_FLIGHT,
        what="self-play validations",
        retry_after_s=settings.ARENA_VALIDATION_RETRY_AFTER_S,
    )


@transaction.atomic
def submission_upload(
    *,
    owner: User,
    data: bytes | None = None,
    source: str | None = None,
    name: str | None = None,
    filename: str | None = None,
    size: int | None = None,
    agent_models: list[str] | None = None,
    match_budget_usd: Any = 0,
    day_budget_usd: Any = 0,
) -> Submission:
    """Check and store an upload, and queue its self-play validation once committed.

    ``size`` is the uploaded file's real size when ``data`` holds only its start. With
    ``agent_models`` (a list, empty for none) the version's models and budgets are set in the
    same transaction (``agent_model_policy_set``, the same checks as setting them later), so
    its self-play already finds them; a refused choice refuses the upload.

    Raises ``Refused`` with one detail per problem (rule, line, message) when a check fails, and
    ``RateLimited`` when the user is at the hourly upload quota or the cap on validations in
    flight (checked under the user's row lock, so concurrent uploads cannot all slip through).
    """
    upload_allowed_check(user=owner)
    upload_throttle_check(owner=owner)
    submission = submission_services.submission_create(
        owner=owner, data=data, source=source, name=name, filename=filename, size=size
    )
    if agent_models is not None:
        agent_model_policy_set(
            submission=submission,
            user=owner,
            model_names=agent_models,
            match_budget_usd=match_budget_usd,
            day_budget_usd=day_budget_usd,
        )
    match_schedule(kind=Match.Kind.VALIDATION, submissions=[submission, submission], timed=True)
    return submission


@transaction.atomic
def submission_activate(*, submission: Submission, user: User) -> Submission:
    """Put an accepted submission on its game's ladder (at most ``ARENA_ACTIVE_PER_GAME``); a
    model entrant only with the budget for a match (which clears a pause's reason); a judged
    game's only while it has its judge."""
    judge = judge_status(submission.agent.game)
    if not judge.ok:
        raise Refused(f"{submission.agent.game} cannot be played ranked now: {judge.reason}")
    entrant = model_entrant_of(submission)
    if entrant is not None:
        reason = model_budget_refusal(config=entrant)
        if reason:
            raise Refused(f"{submission.label} cannot enter the ladder now: {reason}")
        if entrant.paused_reason:
            entrant.paused_reason = ""
            entrant.save(update_fields=["paused_reason"])
    submission = submission_services.submission_mark_active(submission=submission, user=user)
    rating_ensure(submission=submission)
    ladder_pauses_clear(submission=submission)
    return submission


def validation_finished(*, match: Match, record: MatchRecord) -> None:
    """Accept or reject the submission of a finished self-play (inside the match's lock)."""
    submission = match.participants.get(seat=0).submission
    failed = [s for s in record.seats if s.reason not in ("normal", None)]
    if failed:
        seat = failed[0]
        # Not capitalised: a detail often starts with a method name ("on_turn did not answer").
        said = seat.detail.rstrip(".")
        if seat.reason == "crash" and model_entrant_of(submission) is not None:
            # A model seat "crashes" only when its provider kept failing or refused the call
            # (``llm_seat``): the operator's endpoint or key, nothing the entrant can change.
            detail = (
                "In its self-play match the platform could not get an answer from the model: "
                f"{said}. The operator's endpoint refused the platform's key or request, or "
                "could not be reached: nothing your entrant did, and nothing for you to fix. "
                "Once the operator has fixed the endpoint, enter the model again."
            )
        else:
            detail = (
                f"In its self-play match (against itself) your agent "
                f"{reason_text(seat.reason)}: {said}. Fix it and upload a new version."
            )
        submission_services.submission_set_status(
            submission=submission, status="rejected", detail=detail
        )
    else:
        submission_services.submission_set_status(
            submission=submission,
            status="accepted",
            detail=(
                f"played a short {match.game} match against itself ({record.turns} turns, "
                f"{record.rounds_played} round{'s' if record.rounds_played != 1 else ''}): it "
                f"loaded, answered every call and played only legal actions. {match.summary}"
            ).strip(),
        )


def validation_errored(*, match: Match, retrying: bool) -> None:
    """Tell the uploader that the platform, not their agent, failed the self-play, and
    whether it is being tried again."""
    submission = match.participants.get(seat=0).submission
    if submission.status != submission.Status.PENDING:
        return
    submission.status_detail = (
        f"the platform could not run the self-play (not your agent's fault); it is being "
        f"tried again (attempt {match.attempts} failed), nothing to do on your side"
        if retrying
        else "the platform could not run the self-play (not your agent's fault) after "
        f"{match.attempts} attempts; an administrator can re-run it, or upload the file again"
    )
    submission.save(update_fields=["status_detail"])

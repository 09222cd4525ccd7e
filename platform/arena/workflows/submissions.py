"""Upload → validate, and activation → ladder entry."""

from __future__ import annotations

from django.db import transaction

from arena.accounts.models import User
from arena.matches.models import Match
from arena.ratings.services import rating_ensure
from arena.submissions import services as submission_services
from arena.submissions.models import Submission
from arena.workflows.dispatch import match_schedule
from games.core import MatchRecord


@transaction.atomic
def submission_upload(
    *,
    owner: User,
    data: bytes | None = None,
    source: str | None = None,
    name: str | None = None,
    filename: str | None = None,
) -> Submission:
    """Check and store an upload, and queue its self-play validation once committed.

    Raises ``Refused`` with one detail per problem (rule, line, message) when a check fails.
    """
    submission = submission_services.submission_create(
        owner=owner, data=data, source=source, name=name, filename=filename
    )
    match_schedule(kind=Match.Kind.VALIDATION, submissions=[submission, submission], timed=True)
    return submission


@transaction.atomic
def submission_activate(*, submission: Submission, user: User) -> Submission:
    """Put an accepted submission on its game's ladder (at most ``ARENA_ACTIVE_PER_GAME``)."""
    submission = submission_services.submission_mark_active(submission=submission, user=user)
    rating_ensure(submission=submission)
    return submission


def validation_finished(*, match: Match, record: MatchRecord) -> None:
    """Accept or reject the submission of a finished self-play (inside the match's lock)."""
    submission = match.participants.get(seat=0).submission
    failed = [s for s in record.seats if s.reason not in ("normal", None)]
    if failed:
        seat = failed[0]
        detail = f"the self-play match ended by {seat.reason} (seat {seat.seat}): {seat.detail}"
        submission_services.submission_set_status(
            submission=submission, status="rejected", detail=detail
        )
    else:
        submission_services.submission_set_status(
            submission=submission,
            status="accepted",
            detail=f"finished a {match.game} game against itself: {match.summary}",
        )


def validation_errored(*, match: Match) -> None:
    """Tell the uploader that the platform, not their agent, failed the self-play."""
    submission = match.participants.get(seat=0).submission
    submission.status_detail = (
        "the platform could not run the self-play (not your agent's fault); an "
        "administrator can re-run it"
    )
    submission.save(update_fields=["status_detail"])

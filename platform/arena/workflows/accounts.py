"""Deleting or disabling an account: its agents leave the ladders, its matches stay."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from arena.accounts.models import User
from arena.accounts.services import user_anonymise
from arena.submissions.models import Agent, Submission
from arena.submissions.services import submission_deactivate


@transaction.atomic
def account_delete(*, user: User, password: str) -> User:
    """Delete an account (docs/accounts.md): every version leaves its ladder, every agent is
    archived, then the account is anonymised (``deleted-user-<id>``, no token, no password).
    The matches it played stay: the opponents' results and ratings depend on them. ``Refused``
    (nothing changed) when the password is wrong."""
    user = user_anonymise(user=user, password=password)
    _ladders_leave(owners=[user])
    Agent.objects.filter(owner=user, archived__isnull=True).update(archived=timezone.now())
    return user


def _ladders_leave(*, owners: Iterable[User]) -> int:
    """Take every active submission of these owners off its ladder, each through
    ``submission_deactivate`` (the one way off a ladder); returns how many left."""
    active = Submission.objects.filter(agent__owner__in=owners, active=True).select_related(
        "agent__owner"
    )
    left = 0
    for submission in active:
        submission_deactivate(submission=submission, user=submission.agent.owner)
        left += 1
    return left


@transaction.atomic
def users_disable(*, users: Iterable[User]) -> int:
    """Staff: disable accounts (no sign-in, no token) and take their submissions off the
    ladders; returns how many users were disabled."""
    users = list(users)
    User.objects.filter(pk__in=[u.pk for u in users]).update(is_active=False)
    _ladders_leave(owners=users)
    return len(users)

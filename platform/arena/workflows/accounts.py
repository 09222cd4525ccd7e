"""Deleting an account: its agents leave the ladders, its matches stay under a new name."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from arena.accounts.models import User
from arena.accounts.services import user_anonymise
from arena.submissions.models import Agent, Submission


@transaction.atomic
def account_delete(*, user: User, password: str) -> User:
    """Delete an account (docs/accounts.md): every version leaves its ladder, every agent is
    archived, then the account is anonymised (``deleted-user-<id>``, no token, no password).
    The matches it played stay: the opponents' results and ratings depend on them. ``Refused``
    (nothing changed) when the password is wrong."""
    user = user_anonymise(user=user, password=password)
    Submission.objects.filter(agent__owner=user, active=True).update(active=False)
    Agent.objects.filter(owner=user, archived__isnull=True).update(archived=timezone.now())
    return user

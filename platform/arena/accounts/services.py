"""Writes for accounts: sign-up and API tokens."""

from __future__ import annotations

from arena.accounts.models import ApiToken, User


def token_get_or_create(*, user: User) -> ApiToken:
    """The user's API token, created on first use."""
    token, _ = ApiToken.objects.get_or_create(user=user)
    return token


def token_user(key: str) -> User | None:
    """The active user a token belongs to, or None."""
    token = ApiToken.objects.select_related("user").filter(key=key).first()
    if token is None or not token.user.is_active:
        return None
    return token.user

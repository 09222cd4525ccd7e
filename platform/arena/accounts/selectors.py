"""Reads about accounts."""

from __future__ import annotations

from django.http import HttpRequest

from arena.accounts.models import User
from arena.errors import Forbidden


def signed_in_user(request: HttpRequest) -> User:
    """The request's user, for views behind ``login_required`` (``Forbidden`` if anonymous)."""
    user = request.user
    if not isinstance(user, User):
        raise Forbidden("sign in first")
    return user

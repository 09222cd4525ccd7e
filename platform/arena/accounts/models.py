"""Users and their API tokens."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A participant. Custom from day one so the model can grow without a painful migration.

    ``email_verified`` says the person opened the link sent to ``email`` (it is cleared when
    the address changes); uploads need it when the site sends email (``ARENA_EMAIL_VERIFICATION``).
    A deleted account keeps its row, anonymised, so the matches it played stay readable.
    """

    email_verified = models.BooleanField(default=False)
    deleted = models.DateTimeField(null=True, blank=True)


def _new_key() -> str:
    return secrets.token_hex(20)


class ApiToken(models.Model):
    """One token per user for ``Authorization: Token <key>``."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_token"
    )
    key = models.CharField(max_length=40, unique=True, default=_new_key)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"token of {self.user}"

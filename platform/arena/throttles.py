"""Per-user limits on cheap-to-abuse requests; each refusal says when to retry (docs/using.md,
"Limits").

The hourly quotas are atomic: the caller holds the user's row lock (``user_lock``) from the count
to the insert, so concurrent requests of one user queue behind each other instead of all counting
the same total. Login and token attempts are throttled by django-axes (``AXES_*`` settings).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from axes.backends import AxesStandaloneBackend
from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone

from arena import metrics
from arena.accounts.models import User
from arena.errors import RateLimited

HOUR = timedelta(hours=1)


def user_lock(user: User) -> None:
    """Lock the user's row until the surrounding transaction ends (one quota check at a time)."""
    user_lock_id(user.pk)


def user_lock_id(user_id: int) -> None:
    """``user_lock`` by the user's id."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("user_lock needs a transaction: wrap the check and the insert in one")
    User.objects.select_for_update().filter(pk=user_id).values_list("pk", flat=True).first()


def _in(seconds: float) -> str:
    seconds = max(1, math.ceil(seconds))
    if seconds < 120:
        return f"{seconds} seconds"
    return f"{math.ceil(seconds / 60)} minutes"


def hourly_quota_check(*, recent: QuerySet[Any], limit: int, what: str, field: str) -> None:
    """Refuse (429) when ``recent`` (the user's rows of this kind, any time) holds ``limit`` or
    more rows created in the last hour; ``field`` is their creation timestamp."""
    now = timezone.now()
    window = recent.filter(**{f"{field}__gte": now - HOUR})
    count = window.count()
    if count < limit:
        return
    oldest: datetime | None = (
        window.order_by(field).values_list(field, flat=True)[count - limit : count - limit + 1]
    ).first()
    retry_after = ((oldest + HOUR) - now).total_seconds() if oldest else HOUR.total_seconds()
    retry_after = max(1, math.ceil(retry_after))
    when = (now + timedelta(seconds=retry_after)).strftime("%H:%M:%S UTC")
    metrics.inc(metrics.THROTTLED, limit=what)
    raise RateLimited(
        f"you made {count} {what} in the last hour; the limit is {limit} an hour. "
        f"Try again in {_in(retry_after)} (at {when}).",
        retry_after_s=retry_after,
    )


def in_flight_check(*, in_flight: int, limit: int, what: str, retry_after_s: int) -> None:
    """Refuse (429) when ``in_flight`` jobs of the user already wait or run."""
    if in_flight < limit:
        return
    metrics.inc(metrics.THROTTLED, limit=what)
    raise RateLimited(
        f"you already have {in_flight} {what} queued or running (the limit is {limit} at once); "
        f"try again in {_in(retry_after_s)}, when one has finished.",
        retry_after_s=retry_after_s,
    )


def login_lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: object = None
) -> HttpResponse:
    """django-axes' answer to a locked-out client: 429, Retry-After, and when to retry."""
    retry_after = int(settings.ARENA_LOGIN_LOCKOUT_S)
    metrics.inc(metrics.THROTTLED, limit="sign-in attempts")
    message = (
        f"too many failed sign-in attempts from your address "
        f"(the limit is {settings.ARENA_LOGIN_FAILURES}); try again in {_in(retry_after)}, "
        "or reset your password with an administrator"
    )
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse({"error": message, "details": []}, status=429)
    else:
        response = HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(retry_after)
    return response


class LoginThrottleBackend(AxesStandaloneBackend):  # type: ignore[misc]  # axes: untyped
    """django-axes' lockout check for sign-ins that come with a request (the login form and
    POST /api/token); sign-ins without one (the test client, shell scripts) pass through."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)


def login_attempt_username(request: HttpRequest | None, credentials: dict[str, Any] | None) -> str:
    """The username django-axes records for an attempt, cut to what its column holds (an
    over-long one would otherwise fail the insert with a 500)."""
    value = (credentials or {}).get("username")
    if value is None and request is not None:
        value = request.POST.get("username", "")
    return str(value or "")[:150]

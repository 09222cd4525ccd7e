"""The header's unread count, on every page."""

from __future__ import annotations

from django.http import HttpRequest

from arena.notifications.selectors import unread_count


def unread(request: HttpRequest) -> dict[str, int]:
    """``unread_notifications`` for base.html (one COUNT on the inbox index when signed in)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"unread_notifications": 0}
    return {"unread_notifications": unread_count(user=user)}

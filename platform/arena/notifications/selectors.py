"""Reads for notifications: the inbox and the header's unread count."""

from __future__ import annotations

from django.db.models import QuerySet

from arena.accounts.models import User
from arena.notifications.models import Notification, Webhook

INBOX_PER_PAGE = 50


def unread_count(*, user: object) -> int:
    """How many of the user's notifications are unread (0 for an anonymous visitor)."""
    user_id = getattr(user, "pk", None)
    if not user_id:
        return 0
    return Notification.objects.filter(user_id=user_id, read__isnull=True).count()


def inbox(
    *, user: User, before: int | None = None, limit: int = INBOX_PER_PAGE
) -> QuerySet[Notification]:
    """The user's notifications, newest first, ``limit`` of them before id ``before``."""
    rows = Notification.objects.filter(user=user)
    if before is not None:
        rows = rows.filter(pk__lt=before)
    return rows.order_by("-id")[:limit]


def webhook_of(*, user: User) -> Webhook | None:
    """The user's webhook, if they set one."""
    return Webhook.objects.filter(user=user).first()

"""The API's inbox: your notifications, and marking them read."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Query, Router, Schema

from arena.api_base import ERRORS, MAX_ID, Id, user_of
from arena.notifications.selectors import INBOX_PER_PAGE, inbox, unread_count
from arena.notifications.services import notifications_mark_read

router = Router()


class NotificationOut(Schema):
    id: int
    kind: str
    subject: str
    body: str
    url: str
    created: str
    read: bool


class NotificationsOut(Schema):
    unread: int
    notifications: list[NotificationOut]
    next_before: int | None


@router.get(
    "/notifications",
    response={200: NotificationsOut, **ERRORS},
    summary="Your inbox",
    operation_id="arena_api_notifications_view",
)
def notification_list(
    request: HttpRequest,
    before: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
) -> Any:
    """Your notifications, newest first, 50 a page (``before``: the last id of a page)."""
    user = user_of(request)
    rows = list(inbox(user=user, before=before))
    return {
        "unread": unread_count(user=user),
        "notifications": [
            {
                "id": n.pk,
                "kind": n.kind,
                "subject": n.subject,
                "body": n.body,
                "url": n.url,
                "created": n.created.isoformat(),
                "read": n.read is not None,
            }
            for n in rows
        ],
        "next_before": rows[-1].pk if len(rows) == INBOX_PER_PAGE else None,
    }


class ReadIn(Schema):
    #: The notifications to mark read; all of them when absent.
    ids: list[Id] | None = None


class ReadOut(Schema):
    marked: int


@router.post(
    "/notifications/read",
    response={200: ReadOut, **ERRORS},
    summary="Mark read",
    operation_id="arena_api_notifications_read_view",
)
def notification_mark_read(request: HttpRequest, body: ReadIn) -> Any:
    """Mark your notifications read (the ones listed, or all)."""
    return {"marked": notifications_mark_read(user=user_of(request), ids=body.ids)}

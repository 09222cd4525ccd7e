"""Writes for notifications: ``notify`` (the one entry point for every app), deliveries, reading
and settings (docs/using.md, "Notifications").

``notify`` stores the inbox row and, per the user's settings, one delivery per channel; each
delivery is sent by a Celery task once the surrounding transaction commits, so nothing a request
or a match does ever waits on a mail server or a webhook, and a failure there is retried by the
task, never raised to the caller.
"""

from __future__ import annotations

import functools
import json
import logging
import secrets
import time
from collections.abc import Iterable

from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from arena.accounts.models import User
from arena.errors import Refused
from arena.notifications import webhooks
from arena.notifications.models import Channel, Delivery, Kind, Notification, Preference, Webhook

logger = logging.getLogger(__name__)

DELIVER_TASK = "arena.notifications.tasks.delivery_send_task"


def preferences_of(user: User) -> dict[str, dict[str, bool]]:
    """kind → {inbox, email, webhook} for every kind (defaults: all on)."""
    stored = {p.kind: p for p in Preference.objects.filter(user=user)}
    return {
        kind: {
            "inbox": stored[kind].inbox if kind in stored else True,
            "email": stored[kind].email if kind in stored else True,
            "webhook": stored[kind].webhook if kind in stored else True,
        }
        for kind in Kind.values
    }


def email_enabled() -> bool:
    """Whether the operator configured email (``ARENA_NOTIFY_EMAIL``)."""
    return bool(settings.ARENA_NOTIFY_EMAIL)


def notify(
    *,
    user: User,
    kind: str,
    subject: str,
    body: str = "",
    url: str = "",
    dedupe_key: str = "",
) -> Notification | None:
    """Tell ``user`` about an event of ``kind``: an inbox row and, per their settings, email and
    webhook deliveries sent after commit. The same ``dedupe_key`` for the same user stores and
    delivers it once (returns ``None`` the second time, or when every channel is off).

    Never raises for a delivery problem; an unknown ``kind`` is a programming error (ValueError).
    """
    if kind not in Kind.values:
        raise ValueError(f"unknown notification kind {kind!r}; add it to Kind")
    if not user.is_active:
        return None
    prefs = preferences_of(user)[kind]
    channels: list[str] = []
    if prefs["email"] and email_enabled() and user.email:
        channels.append(Channel.EMAIL)
    hook = Webhook.objects.filter(user=user, active=True).first()
    if prefs["webhook"] and hook is not None:
        channels.append(Channel.WEBHOOK)
    if not prefs["inbox"] and not channels:
        return None
    try:
        with transaction.atomic():
            notification = Notification.objects.create(
                user=user,
                kind=kind,
                subject=subject[:200],
                body=body[:10_000],
                url=url[:500],
                dedupe_key=dedupe_key[:200],
                # Off in the inbox: stored as read, so it is delivered but never counted.
                read=None if prefs["inbox"] else timezone.now(),
            )
    except IntegrityError:
        return None  # already told (same dedupe key)
    deliveries = [Delivery.objects.create(notification=notification, channel=c) for c in channels]
    for delivery in deliveries:
        transaction.on_commit(functools.partial(_enqueue, delivery.pk))
    return notification


def _enqueue(delivery_id: int) -> None:
    from arena.celery_app import app

    try:
        app.tasks[DELIVER_TASK].apply_async(args=[delivery_id])
    except Exception:  # the broker is down: the delivery stays pending, the event in the inbox
        logger.exception("notification delivery %s could not be queued", delivery_id)


def _payload(notification: Notification) -> dict[str, object]:
    """The JSON a webhook receives (and what an email says)."""
    base = settings.ARENA_SITE_URL.rstrip("/")
    return {
        "id": notification.pk,
        "kind": notification.kind,
        "subject": notification.subject,
        "body": notification.body,
        "url": f"{base}{notification.url}" if notification.url.startswith("/") else "",
        "created": notification.created.isoformat(),
        "user": notification.user.username,
    }


def delivery_send(*, delivery_id: int) -> str:
    """Send one delivery unless it was sent already (a redelivered task); returns its status.

    Raises whatever the channel raised, after recording it on the delivery: the task retries.
    """
    try:
        return _delivery_send_locked(delivery_id)
    except Exception as exc:
        Delivery.objects.filter(pk=delivery_id).update(
            attempts=F("attempts") + 1, last_error=f"{type(exc).__name__}: {exc}"[:2000]
        )
        raise


@transaction.atomic
def _delivery_send_locked(delivery_id: int) -> str:
    # The row lock makes a duplicate task wait, then find it sent.
    delivery = (
        Delivery.objects.select_for_update()
        .select_related("notification__user")
        .filter(pk=delivery_id)
        .first()
    )
    if delivery is None or delivery.status == Delivery.Status.SENT:
        return Delivery.Status.SENT
    notification = delivery.notification
    if delivery.channel == Channel.EMAIL:
        _send_email(notification)
    else:
        _send_webhook(notification)
    delivery.attempts += 1
    delivery.status = Delivery.Status.SENT
    delivery.sent = timezone.now()
    delivery.last_error = ""
    delivery.save(update_fields=["attempts", "status", "sent", "last_error"])
    return delivery.status


def delivery_give_up(*, delivery_id: int) -> None:
    """The task's retries are used up: mark the delivery failed (the inbox still has it)."""
    Delivery.objects.filter(pk=delivery_id).exclude(status=Delivery.Status.SENT).update(
        status=Delivery.Status.FAILED
    )


def _send_email(notification: Notification) -> None:
    payload = _payload(notification)
    text = notification.body
    if payload["url"]:
        text += f"\n\n{payload['url']}"
    text += (
        f"\n\n-- Agent Arena. Choose what you are told: "
        f"{settings.ARENA_SITE_URL.rstrip('/')}/notifications/settings/"
    )
    send_mail(
        subject=f"[Agent Arena] {notification.subject}",
        message=text,
        from_email=None,
        recipient_list=[notification.user.email],
    )


def _send_webhook(notification: Notification) -> None:
    hook = Webhook.objects.filter(user=notification.user, active=True).first()
    if hook is None:
        return  # removed since: nothing to send
    target = webhooks.webhook_target(hook.url)  # checked again now (DNS rebinding)
    body = json.dumps(_payload(notification), sort_keys=True).encode()
    stamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "AgentArena-Webhook/1",
        webhooks.TIMESTAMP_HEADER: stamp,
        webhooks.SIGNATURE_HEADER: webhooks.signature(hook.secret, stamp, body),
        webhooks.EVENT_HEADER: notification.kind,
    }
    status = webhooks.post(target, body, headers, settings.ARENA_WEBHOOK_TIMEOUT_S)
    if not 200 <= status < 300:
        raise RuntimeError(f"the webhook answered HTTP {status}")


def notifications_mark_read(*, user: User, ids: Iterable[int] | None = None) -> int:
    """Mark the user's notifications read (all when ``ids`` is None); returns how many."""
    unread = Notification.objects.filter(user=user, read__isnull=True)
    if ids is not None:
        unread = unread.filter(pk__in=list(ids))
    return unread.update(read=timezone.now())


def preferences_set(*, user: User, values: dict[str, dict[str, bool]]) -> None:
    """Store the user's channels per kind (kinds not given keep theirs)."""
    for kind, channels in values.items():
        if kind not in Kind.values:
            raise Refused(
                f"unknown notification kind {kind!r}; the kinds: {', '.join(Kind.values)}"
            )
        Preference.objects.update_or_create(
            user=user,
            kind=kind,
            defaults={
                "inbox": bool(channels.get("inbox", True)),
                "email": bool(channels.get("email", True)),
                "webhook": bool(channels.get("webhook", True)),
            },
        )


def webhook_set(*, user: User, url: str) -> Webhook:
    """Set (or replace) the user's webhook; a new secret each time. ``Refused`` for a URL that
    is not HTTPS to public addresses."""
    url = url.strip()
    if len(url) > 500:
        raise Refused("the webhook URL is longer than 500 characters")
    try:
        webhooks.webhook_target(url)
    except webhooks.WebhookRefused as exc:
        raise Refused(str(exc)) from None
    hook, _ = Webhook.objects.update_or_create(
        user=user, defaults={"url": url, "secret": secrets.token_hex(32), "active": True}
    )
    return hook


def webhook_delete(*, user: User) -> None:
    """Remove the user's webhook."""
    Webhook.objects.filter(user=user).delete()

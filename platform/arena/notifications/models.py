"""Notifications: one inbox row per event, its deliveries (email, webhook), per-user settings.

``services.notify`` is the only writer. The kinds are listed in ``Kind``; another app adds one
by adding a member (and its label) there.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Kind(models.TextChoices):
    """What a notification is about; users choose the channels of each kind."""

    VALIDATION = "validation", "validation result of an upload"
    MATCH_FINISHED = "match_finished", "training or challenge match finished"
    CHALLENGE_RECEIVED = "challenge_received", "one of your agents was challenged"
    TOURNAMENT_STARTED = "tournament_started", "a tournament you entered started"
    TOURNAMENT_RESULT = "tournament_result", "a tournament you entered published its results"
    TOURNAMENT_CANCELLED = "tournament_cancelled", "a tournament you entered was cancelled"
    AGENT_PAUSED = "agent_paused", "an agent was taken off the ladder (auto-pause)"


class Channel(models.TextChoices):
    """Where a notification goes besides the inbox."""

    EMAIL = "email", "email"
    WEBHOOK = "webhook", "webhook"


class Notification(models.Model):
    """One event for one user, shown in their inbox."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=32, choices=Kind.choices)
    subject = models.CharField(max_length=200)
    body = models.TextField(blank=True)
    #: A path on this site (``/matches/7/``) or empty.
    url = models.CharField(max_length=500, blank=True)
    #: Same key, same user: the event is stored (and delivered) once.
    dedupe_key = models.CharField(max_length=200, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    read = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "dedupe_key"],
                condition=~models.Q(dedupe_key=""),
                name="notification_once_per_key",
            )
        ]
        # The header's unread count and the inbox page.
        indexes = [models.Index(fields=["user", "read", "-id"], name="notification_inbox")]

    def __str__(self) -> str:
        return f"{self.kind} for {self.user_id}: {self.subject}"


class Preference(models.Model):
    """A user's channels for one kind; without a row every channel is on."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_prefs"
    )
    kind = models.CharField(max_length=32, choices=Kind.choices)
    inbox = models.BooleanField(default=True)
    email = models.BooleanField(default=True)
    webhook = models.BooleanField(default=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="preference_once_per_kind")
        ]

    def __str__(self) -> str:
        return f"{self.user_id}/{self.kind}"


class Webhook(models.Model):
    """A user's HTTPS endpoint that receives every notification as signed JSON."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook"
    )
    url = models.URLField(max_length=500)
    #: The HMAC-SHA256 key of the ``X-Arena-Signature`` header (shown to its owner only).
    secret = models.CharField(max_length=64)
    active = models.BooleanField(default=True)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"webhook of {self.user_id}"


class Delivery(models.Model):
    """One notification sent on one channel: sent once however often its task runs."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        SENT = "sent", "sent"
        FAILED = "failed", "failed"

    notification = models.ForeignKey(
        Notification, on_delete=models.CASCADE, related_name="deliveries"
    )
    channel = models.CharField(max_length=16, choices=Channel.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    sent = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "deliveries"
        constraints = [
            models.UniqueConstraint(
                fields=["notification", "channel"], name="delivery_once_per_channel"
            )
        ]

    def __str__(self) -> str:
        return f"{self.channel} of {self.notification_id}: {self.status}"

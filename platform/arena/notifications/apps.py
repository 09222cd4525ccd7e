"""App config of `arena.notifications`."""

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    """The `notifications` app: inbox, email and webhook deliveries, per-user settings."""

    name = "arena.notifications"
    label = "notifications"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register the delivery tasks in every process."""
        from arena.notifications import tasks  # noqa: F401

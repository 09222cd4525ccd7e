"""App config of `arena.submissions`."""

from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    """The `submissions` app."""

    name = "arena.submissions"
    label = "submissions"
    default_auto_field = "django.db.models.BigAutoField"

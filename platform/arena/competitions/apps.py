"""App config of `arena.competitions`."""

from django.apps import AppConfig


class CompetitionsConfig(AppConfig):
    """The `competitions` app: challenges, match history and head-to-head, ladder auto-pause."""

    name = "arena.competitions"
    label = "competitions"
    default_auto_field = "django.db.models.BigAutoField"

"""App config of `arena.matches`."""

from django.apps import AppConfig


class MatchesConfig(AppConfig):
    """The `matches` app."""

    name = "arena.matches"
    label = "matches"
    default_auto_field = "django.db.models.BigAutoField"

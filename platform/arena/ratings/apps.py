"""App config of `arena.ratings`."""

from django.apps import AppConfig


class RatingsConfig(AppConfig):
    """The `ratings` app."""

    name = "arena.ratings"
    label = "ratings"
    default_auto_field = "django.db.models.BigAutoField"

from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """Seasons and tournaments: entry, freeze, pairing, the scheduler's share, publication."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "arena.tournaments"

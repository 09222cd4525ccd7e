from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """Seasons and tournaments: entry, freeze, pairing, the scheduler's share, publication."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "arena.tournaments"

    def ready(self) -> None:
        """A tournament's games play under its time control (``arena.matches.clock``)."""
        from arena.matches.clock import clock_source_add
        from arena.tournaments.selectors import tournament_match_clock

        clock_source_add(tournament_match_clock)

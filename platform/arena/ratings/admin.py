"""Admin: ratings and their history."""

from django.contrib import admin

from arena.ratings.models import Rating, RatingChange


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin[Rating]):
    """Ladder rows."""

    list_display = (
        "submission",
        "game",
        "game_version",
        "rating",
        "games",
        "wins",
        "losses",
        "draws",
    )
    list_filter = ("game",)


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin[RatingChange]):
    """Every applied change, one per (rating, match)."""

    list_display = ("rating", "match", "before", "after", "created")

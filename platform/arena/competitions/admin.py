"""Admin for challenge settings and auto-pauses."""

from django.contrib import admin

from arena.competitions.models import ChallengePolicy, LadderPause


@admin.register(ChallengePolicy)
class ChallengePolicyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("agent", "accepts", "min_rating", "updated")
    raw_id_fields = ("agent",)


@admin.register(LadderPause)
class LadderPauseAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("submission", "created", "cleared")
    raw_id_fields = ("submission",)

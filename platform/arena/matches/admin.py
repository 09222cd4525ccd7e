"""Admin: matches with re-run and void actions."""

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from arena.admin_actions import each_selected
from arena.matches.models import Match, Participant
from arena.workflows.matches import match_rerun, match_void


class ParticipantInline(admin.TabularInline[Participant, Match]):
    """The seats."""

    model = Participant
    extra = 0
    readonly_fields = (
        "seat",
        "submission",
        "outcome",
        "reason",
        "detail",
        "score",
        "rating_before",
        "rating_after",
    )
    can_delete = False


@admin.action(description="Re-run the selected errored matches")
def rerun(
    modeladmin: admin.ModelAdmin[Match], request: HttpRequest, queryset: QuerySet[Match]
) -> None:
    """Queue errored matches again."""
    each_selected(
        modeladmin, request, queryset, lambda m: match_rerun(match=m), label=lambda m: f"#{m.pk}"
    )


@admin.action(description="Void the selected matches (marked error; applied Elo stays)")
def void(
    modeladmin: admin.ModelAdmin[Match], request: HttpRequest, queryset: QuerySet[Match]
) -> None:
    """Mark matches as not counting."""
    for match in queryset:
        match_void(match=match)


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin[Match]):
    """Matches by game, kind and status."""

    list_display = ("id", "game", "kind", "status", "rated", "attempts", "created", "summary")
    list_filter = ("game", "kind", "status", "rated")
    inlines = [ParticipantInline]
    actions = [rerun, void]
    readonly_fields = (
        "game",
        "game_version",
        "kind",
        "status",
        "timed",
        "seed",
        "config",
        "requested_by",
        "attempts",
        "winner_seat",
        "rounds",
        "stats",
        "final_state",
        "summary",
        "error",
        "error_trace",
        "duration_s",
        "rated",
        "created",
        "started",
        "finished",
    )

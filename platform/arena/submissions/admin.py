"""Admin: agents and submissions."""

from django.contrib import admin

from arena.submissions.models import Agent, Submission


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin[Agent]):
    """Agents by owner and game."""

    list_display = ("name", "owner", "game", "created")
    list_filter = ("game",)
    search_fields = ("name", "owner__username")


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin[Submission]):
    """Submissions are immutable; an admin may take one off the ladder."""

    list_display = ("__str__", "game", "status", "active", "house_bot", "created")
    list_filter = ("status", "active", "agent__game")
    search_fields = ("agent__name", "agent__owner__username", "sha256")
    readonly_fields = (
        "agent",
        "version",
        "source",
        "sha256",
        "game_version",
        "status",
        "status_detail",
        "house_bot",
        "created",
    )

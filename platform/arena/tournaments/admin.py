"""Admin: tournaments (create, pause, resume, re-run) and their entries."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.forms.models import construct_instance
from django.http import HttpRequest

from arena.accounts.selectors import signed_in_user
from arena.admin_actions import each_selected
from arena.tournaments.models import Entry, Tournament
from arena.tournaments.selectors import tournament_problems
from arena.tournaments.services import (
    PLAY_SETTINGS,
    tournament_pause,
    tournament_rerun,
    tournament_resume,
)


class EntryInline(admin.TabularInline[Entry, Tournament]):
    """The entries and the versions frozen for them."""

    model = Entry
    extra = 0
    fields = ("owner", "agent", "submission", "seed", "dropped")
    readonly_fields = ("owner", "agent", "submission", "seed", "dropped")
    can_delete = False


class TournamentAdminForm(forms.ModelForm[Tournament]):
    """The model's fields, checked by the same rules as the staff page."""

    class Meta:
        model = Tournament
        fields = (
            "name",
            "game",
            *PLAY_SETTINGS,
            "entry_opens",
            "entry_closes",
            "freeze_at",
            "publish_at",
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        needed = ("name", "game", "entry_opens", "entry_closes", "freeze_at", "publish_at")
        if all(data.get(k) is not None for k in needed):
            # The fields left out (each with its own error) keep the model's defaults.
            problems = tournament_problems(construct_instance(self, Tournament()))
            if problems:
                raise forms.ValidationError(problems)
        return data


@admin.action(description="Pause the selected tournaments (no new games)")
def pause(
    modeladmin: admin.ModelAdmin[Tournament], request: HttpRequest, queryset: QuerySet[Tournament]
) -> None:
    each_selected(modeladmin, request, queryset, lambda t: tournament_pause(tournament_id=t.pk))


@admin.action(description="Resume the selected tournaments")
def resume(
    modeladmin: admin.ModelAdmin[Tournament], request: HttpRequest, queryset: QuerySet[Tournament]
) -> None:
    each_selected(modeladmin, request, queryset, lambda t: tournament_resume(tournament_id=t.pk))


@admin.action(description="Re-run: a new edition with the same entrants and settings")
def rerun(
    modeladmin: admin.ModelAdmin[Tournament], request: HttpRequest, queryset: QuerySet[Tournament]
) -> None:
    staff = signed_in_user(request)
    each_selected(
        modeladmin,
        request,
        queryset,
        lambda t: tournament_rerun(tournament_id=t.pk, created_by=staff),
    )


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin[Tournament]):
    """Tournaments by game and status; status moves only through the actions."""

    form = TournamentAdminForm
    list_display = ("id", "name", "edition", "game", "status", "freeze_at", "publish_at")
    list_filter = ("game", "status")
    inlines = [EntryInline]
    actions = [pause, resume, rerun]

    def save_model(
        self, request: HttpRequest, obj: Tournament, form: forms.ModelForm[Tournament], change: bool
    ) -> None:
        if not change:
            obj.created_by = signed_in_user(request)
        super().save_model(request, obj, form, change)

"""Pages: the tournaments, one tournament (standings, crosstable, games, entry), staff
controls and the staff page that creates one."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from arena.errors import NotFound, Refused
from arena.tournaments import selectors, services
from arena.tournaments.forms import EntryForm, TournamentForm
from arena.tournaments.models import Tournament


def _get(tournament_id: int) -> Tournament:
    try:
        return selectors.tournament_get(tournament_id=tournament_id)
    except NotFound:
        raise Http404("no such tournament") from None


def tournament_list(request: HttpRequest) -> HttpResponse:
    """Every tournament, newest first."""
    return render(
        request, "tournaments/list.html", {"tournaments": selectors.tournaments_list()[:200]}
    )


def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Settings and schedule for everyone; standings, crosstable and games once published
    (before that, for staff and the entrants' owners)."""
    tournament = _get(tournament_id)
    visible = selectors.progress_visible(tournament, request.user)
    results = selectors.tournament_results(tournament) if visible else None
    now = timezone.now()
    entry_open = (
        tournament.status == Tournament.Status.UPCOMING
        and tournament.entry_opens <= now < tournament.entry_closes
    )
    form = (
        EntryForm(user=request.user, game=tournament.game)
        if entry_open and request.user.is_authenticated
        else None
    )
    names: dict[int, str] = {}
    cross_rows = []
    game_rows = []
    bye_rows = []
    if results is not None:
        names = {
            e.pk: f"{e.agent.name} v{e.submission.version}" if e.submission else e.agent.name
            for e in results.entries.values()
        }
        order = [s.entrant for s in results.standings]
        cross_rows = [
            {
                "standing": s,
                "name": names[s.entrant],
                "owner": results.entries[s.entrant].owner.username,
                "cells": [
                    None if o == s.entrant else results.crosstable[s.entrant].get(o) for o in order
                ],
            }
            for s in results.standings
        ]
        game_rows = [
            {"game": g, "seat0": names[g.seat0], "seat1": names[g.seat1]} for g in results.games
        ]
        bye_rows = [{"round": r, "name": names[e]} for r, e in results.byes]
    return render(
        request,
        "tournaments/detail.html",
        {
            "t": tournament,
            "time_control": selectors.time_control_text(tournament),
            "visible": visible,
            "results": results,
            "game_rows": game_rows,
            "bye_rows": bye_rows,
            "cross_rows": cross_rows,
            "entry_open": entry_open,
            "form": form,
            "my_entry": selectors.entry_of(tournament, request.user),
            "entrants": tournament.entries.count(),
            # Publication waits for the last game: past its set time, say that, not the time.
            "publish_due": tournament.publish_at <= now,
        },
    )


@login_required
@require_POST
def enter(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Enter (or change) the user's agent."""
    tournament = _get(tournament_id)
    form = EntryForm(request.POST, user=request.user, game=tournament.game)
    if not form.is_valid():
        messages.error(request, "choose one of your agents with an accepted version")
    else:
        try:
            services.entry_create(
                user=request.user,  # type: ignore[arg-type]
                tournament_id=tournament.pk,
                agent_id=form.cleaned_data["agent"].pk,
            )
        except Refused as exc:
            messages.error(request, exc.message)
        else:
            messages.success(
                request,
                f"{form.cleaned_data['agent'].name} is entered; its latest accepted version at "
                f"the freeze ({tournament.freeze_at:%Y-%m-%d %H:%M} UTC) is the one that plays",
            )
    return redirect("tournaments:detail", tournament_id=tournament.pk)


@login_required
@require_POST
def withdraw(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Take the user's entry out while entries are open."""
    try:
        services.entry_withdraw(user=request.user, tournament_id=tournament_id)  # type: ignore[arg-type]
    except NotFound:
        raise Http404("no such tournament") from None
    except Refused as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "your entry is withdrawn")
    return redirect("tournaments:detail", tournament_id=tournament_id)


@staff_member_required
@require_POST
def control(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Staff: pause, resume or re-run."""
    action = request.POST.get("action", "")
    try:
        if action == "pause":
            services.tournament_pause(tournament_id=tournament_id)
            messages.success(request, "paused: no new game starts until it is resumed")
        elif action == "resume":
            services.tournament_resume(tournament_id=tournament_id)
            messages.success(request, "resumed")
        elif action == "rerun":
            copy = services.tournament_rerun(tournament_id=tournament_id, created_by=request.user)  # type: ignore[arg-type]
            messages.success(request, f"edition {copy.edition} created; it starts within a tick")
            return redirect("tournaments:detail", tournament_id=copy.pk)
        else:
            messages.error(request, "unknown action: pause, resume or rerun")
    except NotFound:
        raise Http404("no such tournament") from None
    except Refused as exc:
        messages.error(request, exc.message)
    return redirect("tournaments:detail", tournament_id=tournament_id)


@staff_member_required
def new(request: HttpRequest) -> HttpResponse:
    """Staff: create a tournament."""
    form = TournamentForm(request.POST or None)
    error = ""
    if request.method == "POST" and form.is_valid():
        try:
            tournament = services.tournament_create(
                created_by=request.user,  # type: ignore[arg-type]
                **form.cleaned_data,
            )
        except Refused as exc:
            error = exc.message
        else:
            return redirect("tournaments:detail", tournament_id=tournament.pk)
    return render(request, "tournaments/new.html", {"form": form, "error": error})

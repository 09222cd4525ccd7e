"""The games as the registry declares them: home, game page (rules, starter, leaderboard)."""

from __future__ import annotations

import markdown
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe

from arena.matches.models import Match
from arena.ratings.selectors import leaderboard
from games.core import GameSpec, UnknownGameError, available_game_ids, get_game_spec


def _spec(game: str) -> GameSpec:
    try:
        return get_game_spec(game)
    except UnknownGameError as exc:
        raise Http404(str(exc)) from None


def home(request: HttpRequest) -> HttpResponse:
    """Every game, with its ladder size and a link to its page."""
    games = [get_game_spec(g) for g in available_game_ids()]
    rows = [{"spec": s, "ladder": len(leaderboard(game=s.id))} for s in games]
    return render(request, "catalog/home.html", {"games": rows})


def game(request: HttpRequest, game: str) -> HttpResponse:
    """Rules, the starter agent, house bots and the leaderboard of one game."""
    spec = _spec(game)
    # rules.md is our own file (not user input), so rendering its HTML is safe.
    html = markdown.markdown(spec.rules_markdown(), extensions=["tables", "fenced_code"])
    rules_html = mark_safe(html)  # noqa: S308
    recent = (
        Match.objects.filter(game=game, kind=Match.Kind.RANKED, status=Match.Status.FINISHED)
        .prefetch_related("participants__submission__agent")
        .order_by("-id")[:10]
    )
    return render(
        request,
        "catalog/game.html",
        {
            "spec": spec,
            "rules_html": rules_html,
            "board": leaderboard(game=game),
            "bots": sorted(spec.bots),
            "recent": recent,
            "is_poker": game == "poker",
        },
    )


def starter(request: HttpRequest, game: str) -> HttpResponse:
    """Download the game's starter agent as agent.py."""
    spec = _spec(game)
    response = HttpResponse(spec.starter_source(), content_type="text/x-python; charset=utf-8")
    filename = f"{game.replace('-', '_')}_agent.py"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response

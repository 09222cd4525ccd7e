"""The games as the registry declares them: home, game page (rules, starter, leaderboard)."""

from __future__ import annotations

from functools import cache

import markdown  # type: ignore[import-untyped,unused-ignore]  # no stubs in our pinned set
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from arena.llm.judging import judge_status
from arena.matches.selectors import ranked_matches
from arena.ratings.presenter import leaderboard_cells, leaderboard_rows_html
from arena.ratings.selectors import leaderboard_page, leaderboard_tops
from games.core import GameSpec, UnknownGameError, available_game_ids, get_game_spec


def _spec(game: str) -> GameSpec:
    try:
        return get_game_spec(game)
    except UnknownGameError as exc:
        raise Http404(str(exc)) from None


@cache
def _rules_html(game: str, version: int) -> SafeString:
    """The rules page as HTML, rendered once per process (tens of ms a request otherwise)."""
    spec = get_game_spec(game)
    html = str(markdown.markdown(spec.rules_markdown(), extensions=["tables", "fenced_code"]))
    # rules.md is our own file (not user input), so rendering its HTML is safe.
    return mark_safe(html)  # noqa: S308


@cache
def _strength_html(game: str, version: int) -> SafeString:
    """The house bots' strength table (``strength.json``, a file of ours that changes only with
    the game's version), rendered once per process."""
    html = render_to_string("catalog/_strength.html", {"spec": get_game_spec(game)})
    return mark_safe(html)  # noqa: S308 - the template escaped what it placed


def home(request: HttpRequest) -> HttpResponse:
    """Every game (what it is, its leaderboard's top), and the ranked matches live and recent."""
    games = [get_game_spec(g) for g in available_game_ids()]
    tops = leaderboard_tops(games=[s.id for s in games])
    rows = [
        {"spec": s, "top": leaderboard_cells(tops[s.id]), "unavailable": judge_status(s.id).reason}
        for s in games
    ]
    return render(
        request,
        "catalog/home.html",
        {
            "games": rows,
            "min_matches": settings.ARENA_RANKING_MIN_MATCHES,
            "live": ranked_matches(live=True, limit=5),
            # The recent list shows each match's summary: no seats read.
            "recent": ranked_matches(live=False, limit=5, seats=False),
        },
    )


def _page_number(request: HttpRequest) -> int:
    try:
        return int(request.GET.get("page", "1"))
    except ValueError:
        return 1


def game(request: HttpRequest, game: str) -> HttpResponse:
    """Rules, the starter agent, house bots and one page of the leaderboard (``?page=``,
    ``?q=`` searches agent names and owners)."""
    spec = _spec(game)
    rules_html = _rules_html(spec.id, spec.version)
    recent = ranked_matches(live=False, game=game, seats=False)  # summaries only
    kind = request.GET.get("kind", "")
    board = leaderboard_page(
        game=game,
        page=_page_number(request),
        search=request.GET.get("q", ""),
        kind=kind if kind in ("code", "model") else "",
    )
    cells = leaderboard_cells(board.rows)
    return render(
        request,
        "catalog/game.html",
        {
            "spec": spec,
            # A judged game without its judge: shown, with why it cannot be played ranked.
            "unavailable": judge_status(spec.id).reason,
            "rules_html": rules_html,
            "strength_html": _strength_html(spec.id, spec.version),
            "board": board,
            # The page's rows as the table prints them.
            "cells": cells,
            "rows_html": leaderboard_rows_html(
                cells,
                ranking=board.ranking,
                min_matches=board.min_matches,
                me=request.user.get_username() if request.user.is_authenticated else "",
            ),
            "bots": sorted(spec.bots),
            "recent": recent,
            "live": ranked_matches(live=True, game=game),
        },
    )


def starter(request: HttpRequest, game: str) -> HttpResponse:
    """Download the game's starter agent as agent.py."""
    spec = _spec(game)
    response = HttpResponse(spec.starter_source(), content_type="text/x-python; charset=utf-8")
    filename = f"{game.replace('-', '_')}_agent.py"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response

"""Pages of the ratings: the boards across games and a model's card (thin: reads in
``unified.py`` and ``model_card.py``)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from arena.errors import NotFound
from arena.ratings.links import agent_url_maker, url_maker
from arena.ratings.model_card import model_card
from arena.ratings.unified import unified_board

BOARDS = ("models", "users")
#: Rows a board's page shows (the downloads hold them all).
PAGE_ROWS = 200


def unified(request: HttpRequest) -> HttpResponse:
    """``?board=models`` (default) or ``users``."""
    board = request.GET.get("board", "models")
    if board not in BOARDS:
        board = "models"
    found = unified_board(board=board, limit=PAGE_ROWS)
    # A column for each game someone on the page stands in (the fit spans every ladder's
    # games, house bots' included: a users' board would be mostly empty columns).
    games = [g for g in found.games if any(g in row["per_game"] for row in found.rows)]
    agent_url = agent_url_maker()
    rows = [
        {
            **row,
            "range_text": ""
            if row["rank_best"] == row["rank_worst"]
            else f"{row['rank_best']}–{row['rank_worst']}",
            "interval": round((row["rating_high"] - row["rating_low"]) / 2),
            "model_name": row["key"].split(":")[1] if row["key"].startswith("model:") else "",
            "cells": [
                None
                if game not in row["per_game"]
                else {
                    **row["per_game"][game],
                    "url": agent_url(row["per_game"][game]["agent_id"]),
                    "interval": round(
                        (row["per_game"][game]["high"] - row["per_game"][game]["low"]) / 2
                    ),
                }
                for game in games
            ],
        }
        for row in found.rows
    ]
    return render(
        request,
        "ratings/unified.html",
        {"board": found, "games": games, "rows": rows, "boards": BOARDS},
    )


def model(request: HttpRequest, name: str) -> HttpResponse:
    """A registered model's card."""
    try:
        card = model_card(name=name)
    except NotFound as exc:
        raise Http404(str(exc)) from None
    agent_url, match_url = agent_url_maker(), url_maker("matches:detail")
    for row in card["per_game"]:
        row["url"] = agent_url(row["agent_id"])
        row["interval"] = round((row["rating_high"] - row["rating_low"]) / 2)
    for row in card["unified"]:
        row["interval"] = round((row["rating_high"] - row["rating_low"]) / 2)
    for game in card["latest_games"]:
        game["url"] = match_url(game["match"])
    return render(request, "ratings/model.html", {"card": card})

"""The match page: participants, outcome and why, a replay, and the per-turn log (live)."""

from __future__ import annotations

import json

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from arena.errors import Forbidden, NotFound
from arena.matches import replays
from arena.matches.selectors import match_get_visible, match_log, owned_seats


def detail(request: HttpRequest, match_id: int) -> HttpResponse:
    """The whole page, or (htmx) the live part only while the match runs."""
    try:
        match = match_get_visible(match_id=match_id, user=request.user)
    except NotFound:
        raise Http404("no such match") from None
    except Forbidden as exc:
        raise PermissionDenied(exc.message) from None
    participants = list(match.participants.select_related("submission__agent__owner"))
    names = {p.seat: p.submission.label for p in participants}
    entries = match_log(match, request.user)
    mine = owned_seats(match, request.user)
    log_rows = [
        {
            **e,
            "who": names.get(e.get("seat"), "-"),
            "mine": e.get("seat") in mine,
            "payload_json": json.dumps(e.get("payload"), indent=1, default=str)
            if e.get("payload")
            else "",
            "reply_json": json.dumps(e.get("reply"), default=str) if "reply" in e else "",
            "action_json": json.dumps(e["action"], default=str) if e.get("action") else "",
        }
        for e in entries
    ]
    context = {
        "match": match,
        "participants": participants,
        "log": log_rows,
        "mine": mine,
        "moves": replays.replay_moves(entries, names) if match.is_done else [],
        "boards": replays.chess_boards(entries) if match.game == "chess" and match.is_done else [],
        "rounds": replays.round_rows(match.rounds),
    }
    template = "matches/_live.html" if request.headers.get("HX-Request") else "matches/detail.html"
    return render(request, template, context)

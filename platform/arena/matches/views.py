"""The match page: participants, outcome and why, a replay, and the per-turn log (live)."""

from __future__ import annotations

import json

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.html import escape

from arena.errors import Forbidden, NotFound
from arena.matches import replays
from arena.matches.models import Match
from arena.matches.selectors import match_as_dict, match_get_visible, match_log, owned_seats

LOG_ROWS_SHOWN = 400


def _visible(request: HttpRequest, match_id: int) -> Match:
    try:
        return match_get_visible(match_id=match_id, user=request.user)
    except NotFound:
        raise Http404("no such match") from None
    except Forbidden as exc:
        raise PermissionDenied(exc.message) from None


def event_state(request: HttpRequest, match_id: int, seq: int) -> HttpResponse:
    """The state sent in one call, loaded when a person opens it (htmx)."""
    match = _visible(request, match_id)
    entries = match_log(match, request.user, seq=seq)
    if not entries:
        raise Http404("no such call")
    payload = entries[0].get("payload")
    text = json.dumps(payload, indent=1, default=str) if payload else "(nothing to show)"
    return HttpResponse(f"<pre>{escape(text)}</pre>")


def detail(request: HttpRequest, match_id: int) -> HttpResponse:
    """The whole page, or (htmx) the live part only while the match runs."""
    match = _visible(request, match_id)
    shown = match_as_dict(match, request.user)
    participants = shown["participants"]
    names = {p["seat"]: p["agent"] for p in participants}
    entries = match_log(match, request.user)
    mine = owned_seats(match, request.user)
    log_rows = [
        {
            **e,
            "who": names.get(e.get("seat"), "-"),
            "mine": e.get("seat") in mine,
            "has_payload": bool(e.get("payload")),
            "failed": e.get("failed"),
            "reply_json": json.dumps(e["reply"], default=str) if e.get("reply") is not None else "",
            "action_json": json.dumps(e["action"], default=str) if e.get("action") else "",
        }
        for e in entries
    ]
    context = {
        "match": match,
        "shown": shown,
        "participants": participants,
        # Long matches (poker: a thousand calls) show the latest rows; the API has them all.
        "log": log_rows[-LOG_ROWS_SHOWN:],
        "log_total": len(log_rows),
        "log_rows_shown": LOG_ROWS_SHOWN,
        "mine": mine,
        "moves": replays.replay_moves(entries, names) if match.is_done else [],
        "boards": replays.chess_boards(entries) if match.game == "chess" and match.is_done else [],
        "hands": replays.poker_hands(shown["rounds"], names) if match.game == "poker" else [],
        "rounds": replays.round_rows(shown["rounds"], names) if match.game != "poker" else [],
    }
    template = "matches/_live.html" if request.headers.get("HX-Request") else "matches/detail.html"
    return render(request, template, context)

"""The match page: participants, outcome and why, the game's replay in the shared player (live
while the match runs), and the per-call log, paginated."""

from __future__ import annotations

import json

from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.html import escape
from django_htmx.http import trigger_client_event

from arena.errors import Forbidden, NotFound
from arena.matches.models import Match
from arena.matches.replays import match_replay
from arena.matches.selectors import (
    match_as_dict,
    match_get_visible,
    match_log,
    match_queue_wait,
    owned_seats,
)

LOG_ROWS_PER_PAGE = 100


def _visible(request: HttpRequest, match_id: int) -> Match:
    try:
        return match_get_visible(match_id=match_id, user=request.user)
    except NotFound:
        raise Http404("There is no such match; it may have been removed.") from None
    except Forbidden as exc:
        raise PermissionDenied(exc.message) from None


def _head_context(request: HttpRequest, match: Match, start: int) -> dict[str, object]:
    # The match as this person may see it: other seats' details and errors are neutral.
    shown = match_as_dict(match, request.user)
    mine = owned_seats(match, request.user)
    replay = match_replay(match, request.user, start=start)
    return {
        "match": match,
        "shown": shown,
        "participants": shown["participants"],
        "mine": mine,
        "replay": replay,
        # The next poll asks again for the round in play: its frames may still change.
        "next_start": replay["round_start"],
        # Queued: what it waits for (its queue and the matches ahead of it).
        "queue_wait": match_queue_wait(match),
    }


def detail(request: HttpRequest, match_id: int) -> HttpResponse:
    """The whole page: head (live while running), the player, and the turn log (loaded apart)."""
    match = _visible(request, match_id)
    return render(request, "matches/detail.html", _head_context(request, match, 0))


def live(request: HttpRequest, match_id: int) -> HttpResponse:
    """(htmx, every 2 s while running) the head and the frames from ``start`` on; the player
    appends them without touching what the person has open. Tells the page when it is over."""
    match = _visible(request, match_id)
    try:
        start = max(0, int(request.GET.get("start", "0")))
    except ValueError:
        start = 0
    if match.is_done:
        # The end can reveal what was hidden while it ran: send the whole replay once more.
        start = 0
    response = render(request, "matches/_head.html", _head_context(request, match, start))
    if match.is_done:
        trigger_client_event(response, "matchDone")
    return response


def log(request: HttpRequest, match_id: int) -> HttpResponse:
    """(htmx) One page of the per-call log; ``mine=1`` keeps only the viewer's seats."""
    match = _visible(request, match_id)
    participants = list(match.participants.select_related("submission__agent"))
    names = {p.seat: p.submission.label for p in participants}
    mine = owned_seats(match, request.user)
    only_mine = request.GET.get("mine") == "1" and bool(mine)
    entries = match_log(match, request.user)
    if only_mine:
        entries = [e for e in entries if e.get("seat") in mine]
    paginator = Paginator(entries, LOG_ROWS_PER_PAGE)
    page = paginator.get_page(request.GET.get("page") or 1)
    rows = [
        {
            **e,
            "who": names.get(e.get("seat"), "referee" if e.get("method") == "referee" else "-"),
            "mine": e.get("seat") in mine,
            "has_payload": bool(e.get("payload")),
            "failed": e.get("failed"),
            "reply_json": json.dumps(e["reply"], default=str) if e.get("reply") is not None else "",
            "action_json": json.dumps(e["action"], default=str) if e.get("action") else "",
        }
        for e in page.object_list
    ]
    return render(
        request,
        "matches/_log.html",
        {"match": match, "page": page, "log": rows, "mine": mine, "only_mine": only_mine},
    )


def event_state(request: HttpRequest, match_id: int, seq: int) -> HttpResponse:
    """The state sent in one call, loaded when a person opens it (htmx)."""
    match = _visible(request, match_id)
    entries = match_log(match, request.user, seq=seq)
    if not entries:
        raise Http404("There is no such call in this match's log.")
    payload = entries[0].get("payload")
    text = json.dumps(payload, indent=1, default=str) if payload else "(nothing to show)"
    return HttpResponse(f"<pre>{escape(text)}</pre>")

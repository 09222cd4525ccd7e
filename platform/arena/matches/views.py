"""The match page: participants, outcome and why, the game's replay in the shared player (live
while the match runs), and the per-call log, paginated."""

from __future__ import annotations

import json
from typing import Any, cast

from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.html import escape
from django_htmx.http import trigger_client_event

from arena.errors import Forbidden, NotFound
from arena.llm.selectors import match_uses_models
from arena.matches.models import Match
from arena.matches.replays import match_replay
from arena.matches.selectors import (
    match_as_dict,
    match_get_visible,
    match_log,
    match_queue_wait,
    owned_seats,
)
from games.core.record import LogEntry

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
    """The whole page: head (live while running), the player, and the turn log (loaded apart);
    the link to the model calls only where a model played or was asked."""
    match = _visible(request, match_id)
    context = _head_context(request, match, 0)
    seats = cast(list[dict[str, Any]], context["participants"])
    context["uses_models"] = match_uses_models(
        match_id=match.pk, submission_ids=[p["submission"] for p in seats]
    )
    return render(request, "matches/detail.html", context)


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


#: A print longer than this many lines or characters is folded: its head and tail are shown,
#: the whole of it behind an expander (fifteen 8 KiB prints made a page 88,000 px tall).
PRINT_FOLD_LINES = 12
PRINT_FOLD_CHARS = 1200
#: How many lines of a folded print's start and end stay in view.
PRINT_PREVIEW_LINES = 4


def print_fold(text: str) -> dict[str, object] | None:
    """How a long print is shown folded: its first and last lines, and what is between; ``None``
    when it is short enough to show whole."""
    lines = text.rstrip("\n").split("\n")
    if len(lines) <= PRINT_FOLD_LINES and len(text) <= PRINT_FOLD_CHARS:
        return None
    if len(lines) > 2 * PRINT_PREVIEW_LINES:
        head = "\n".join(lines[:PRINT_PREVIEW_LINES])
        tail = "\n".join(lines[-PRINT_PREVIEW_LINES:])
        hidden = f"{len(lines) - 2 * PRINT_PREVIEW_LINES:,} more lines"
    else:  # a few very long lines: cut by characters
        part = PRINT_FOLD_CHARS // 3
        head, tail = text[:part], text[-part:]
        hidden = f"{len(text) - 2 * part:,} more characters"
    # Never longer than the fold itself: a preview of one huge line is cut too.
    return {
        "head": head[:PRINT_FOLD_CHARS],
        "tail": tail[-PRINT_FOLD_CHARS:],
        "hidden": hidden,
        "lines": len(lines),
        "chars": len(text),
    }


def _int_or_none(value: str | None) -> int | None:
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def log(request: HttpRequest, match_id: int) -> HttpResponse:
    """(htmx) One page of the per-call log; ``mine=1`` keeps only the viewer's seats.

    While the match runs, the last page polls with ``after=<seq>`` for the calls made since
    (``_log_rows.html``), so the owner reads the prints turn by turn as they are played."""
    match = _visible(request, match_id)
    participants = list(match.participants.select_related("submission__agent"))
    names = {p.seat: p.submission.label for p in participants}
    mine = owned_seats(match, request.user)
    only_mine = request.GET.get("mine") == "1" and bool(mine)
    entries = match_log(match, request.user)
    if only_mine:
        entries = [e for e in entries if e.get("seat") in mine]
    after = _int_or_none(request.GET.get("after"))
    if after is not None:
        new = [e for e in entries if isinstance(e.get("seq"), int) and e["seq"] > after]
        new = new[:LOG_ROWS_PER_PAGE]
        return render(
            request,
            "matches/_log_rows.html",
            {
                "match": match,
                "log": _log_rows(new, names, mine),
                "only_mine": only_mine,
                "tail_after": _last_seq(new, after),
                "live": not match.is_done,
                "count": len(entries),
                "tail": True,
            },
        )
    paginator = Paginator(entries, LOG_ROWS_PER_PAGE)
    page = paginator.get_page(request.GET.get("page") or 1)
    shown = list(page.object_list)
    return render(
        request,
        "matches/_log.html",
        {
            "match": match,
            "page": page,
            "log": _log_rows(shown, names, mine),
            "mine": mine,
            "only_mine": only_mine,
            "live": not match.is_done and not page.has_next(),
            "tail_after": _last_seq(shown, -1),
            "count": len(entries),
        },
    )


def _last_seq(entries: list[LogEntry], default: int) -> int:
    seqs = [e["seq"] for e in entries if isinstance(e.get("seq"), int)]
    return max(seqs, default=default)


def _who(entry: LogEntry, names: dict[int, str]) -> str:
    """The name of the seat the entry is about, else ``referee`` or ``-``."""
    seat = entry.get("seat")
    if seat is not None and seat in names:
        return names[seat]
    return "referee" if entry.get("method") == "referee" else "-"


def _fold(entry: LogEntry) -> dict[str, object] | None:
    """How the entry's print is folded (``None``: none, or short enough to show whole)."""
    stdout = entry.get("stdout")
    return print_fold(stdout) if isinstance(stdout, str) else None


def _log_rows(
    entries: list[LogEntry], names: dict[int, str], mine: set[int]
) -> list[dict[str, Any]]:
    return [
        {
            **e,
            "who": _who(e, names),
            "mine": e.get("seat") in mine,
            "has_payload": bool(e.get("payload")),
            "failed": e.get("failed"),
            "reply_json": json.dumps(e["reply"], default=str) if e.get("reply") is not None else "",
            "action_json": json.dumps(e["action"], default=str) if e.get("action") else "",
            "fold": _fold(e),
        }
        for e in entries
    ]


def event_state(request: HttpRequest, match_id: int, seq: int) -> HttpResponse:
    """The state sent in one call, loaded when a person opens it (htmx)."""
    match = _visible(request, match_id)
    entries = match_log(match, request.user, seq=seq)
    if not entries:
        raise Http404("There is no such call in this match's log.")
    payload = entries[0].get("payload")
    text = json.dumps(payload, indent=1, default=str) if payload else "(nothing to show)"
    return HttpResponse(f"<pre>{escape(text)}</pre>")

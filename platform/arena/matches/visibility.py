"""What everyone but a seat's owner sees of it: the game's public view.

The rule is docs/architecture.md, "Who sees what".

The selectors call these on every read path (API, pages, log download), during and after the
match. A seat's owner (and staff, who own every seat for reading) sees the seat as stored;
everyone else sees:

* of each call's log entry: the state sent through the game's ``public_payload`` (given that
  seat's round result once the round has ended: a showdown shows hole cards), the action
  through ``public_action`` (a simultaneous choice stays sealed until the round ends), and no
  prints, exception texts, tracebacks, refusal reasons or raw replies (``failed`` says a call
  went wrong, not how);
* of each round result: the game's public view of that seat's result;
* of a forfeit: a neutral reason (``games.core.public_reason``), never the agent's text;
* of a platform error: that there was one, not its traceback.

The time each call took (``elapsed_ms``, ``wall_ms``, ``cpu_ms``) stays in every seat's public
view, like a chess clock: anyone watching the match live sees how long each move took anyway.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from games.core import Game, LogEntry, get_game_spec, public_reason

#: Entry fields that only the seat's owner reads: prints, exception texts and tracebacks,
#: refusal reasons, and the raw reply (an illegal reply can carry anything, a sealed choice).
OWNER_ONLY_FIELDS = ("stdout", "error", "illegal", "reply")
#: Fields the referee adds to a retried state: the previous refusal reason (with a traceback).
RETRY_FIELDS = ("error",)
#: What non-owners read instead of a platform error's text.
PUBLIC_PLATFORM_ERROR = (
    "the platform could not run this match (no agent's fault); it does not count"
)
#: The one referee-written detail a winner's row carries (``won by forfeit: the opponent
#: <what it did>``, from ``games.core.record.REASON_TEXT``: never the agent's own text).
OPPONENT_FORFEITED = "won by forfeit: the opponent"


def _game_class(game_id: str) -> type[Game] | None:
    try:
        return get_game_spec(game_id).game_class
    except Exception:  # a game no longer registered: show nothing of its states
        return None


def round_reveals(
    entries: Iterable[LogEntry], rounds: Iterable[Mapping[str, Any]] = ()
) -> dict[tuple[int, int], dict[str, Any]]:
    """(seat, round) -> that seat's round result, from the match's rounds and the log's
    ``on_round_end`` calls (the only source while the match runs)."""
    reveals: dict[tuple[int, int], dict[str, Any]] = {}
    for r in rounds:
        result = r.get("result")
        if not isinstance(result, Mapping) or not isinstance(r.get("round"), int):
            continue
        for pid, view in result.items():
            seat = _seat_of(pid)
            if seat is not None and isinstance(view, Mapping):
                reveals[(seat, r["round"])] = dict(view)
    for e in entries:
        payload = e.get("payload")
        if e.get("method") == "on_round_end" and isinstance(payload, Mapping):
            key = (e.get("seat"), payload.get("round", e.get("round")))
            if isinstance(key[0], int) and isinstance(key[1], int):
                reveals.setdefault((key[0], key[1]), dict(payload))
    return reveals


def _seat_of(player_id: object) -> int | None:
    """Seats are played as ``p0``, ``p1``… (``ArenaConfig.for_seats``)."""
    if isinstance(player_id, str) and player_id[:1] == "p" and player_id[1:].isdigit():
        return int(player_id[1:])
    return None


def public_entry(
    game: type[Game] | None,
    entry: LogEntry,
    reveals: Mapping[tuple[int, int], Mapping[str, Any]],
) -> LogEntry:
    """One log entry as everyone but the seat's owner sees it."""
    # A comprehension loses the TypedDict: the keys are the entry's own, the values None or its.
    shown = cast(LogEntry, {k: None if k in OWNER_ONLY_FIELDS else v for k, v in entry.items()})
    shown["failed"] = bool(entry.get("error") or entry.get("illegal"))
    seat, method = entry.get("seat"), str(entry.get("method") or "")
    round_no = entry.get("round")
    # Once the call's round has ended its result may reveal more (poker: a showdown).
    revealed = (
        reveals.get((seat, round_no))
        if isinstance(seat, int) and isinstance(round_no, int)
        else None
    )
    payload = entry.get("payload")
    phase = payload.get("phase") if isinstance(payload, Mapping) else None
    if isinstance(payload, Mapping):
        if game is None:
            shown["payload"] = None
        else:
            payload = {k: v for k, v in payload.items() if k not in RETRY_FIELDS}
            if method == "on_match_end":
                payload["reason"] = public_match_end_reason(payload.get("reason"))
            shown["payload"] = game.public_payload(method, payload, revealed)
    elif payload is not None:
        shown["payload"] = None
    if shown.get("action") is not None:
        shown["action"] = (
            None if game is None else game.public_action(phase, entry["action"], revealed)
        )
    return shown


def public_match_end_reason(reason: object) -> str:
    """The ``reason`` of a match result with the forfeiting agent's text replaced."""
    text = str(reason or "")
    kind, _, detail = text.partition(":")
    if not detail or kind == "normal":
        return kind or "normal"
    detail = detail.strip()
    neutral = {
        public_reason(kind, who=who, raised=raised)
        for who in ("the opponent's agent", "the agent")
        for raised in (False, True)
    }
    if detail in neutral:
        return f"{kind}: {detail}"  # already a neutral sentence (what the opponent is sent)
    return f"{kind}: {public_reason(kind, who='the agent') or 'the agent forfeited'}"


def public_log(
    game_id: str,
    entries: Sequence[LogEntry],
    owned: set[int],
    rounds: Iterable[Mapping[str, Any]] = (),
    *,
    selected: Sequence[LogEntry] | None = None,
) -> list[LogEntry]:
    """The log (or the ``selected`` part of it) with every seat not in ``owned`` shown in its
    public view; what rounds revealed is read from the whole of ``entries``."""
    shown = entries if selected is None else selected
    if not shown:
        return []
    game = _game_class(game_id)
    reveals = round_reveals(entries, rounds)
    return [
        _own_entry(e) if e.get("seat") in owned else public_entry(game, e, reveals) for e in shown
    ]


def _own_entry(entry: LogEntry) -> LogEntry:
    """An entry of the viewer's own seat: as stored, marked ``failed`` for display."""
    own = entry.copy()
    own["failed"] = bool(entry.get("error") or entry.get("illegal"))
    return own


def public_rounds(
    game_id: str, rounds: Iterable[Mapping[str, Any]], owned: set[int]
) -> list[dict[str, Any]]:
    """The match's round results with the seats not in ``owned`` in their public view."""
    game = _game_class(game_id)
    shown = []
    for r in rounds:
        result = r.get("result")
        if not isinstance(result, Mapping):
            continue
        views = {}
        for pid, view in result.items():
            seat = _seat_of(pid)
            if seat in owned:
                views[pid] = view
            elif game is not None and isinstance(view, Mapping):
                views[pid] = game.public_payload("on_round_end", view, view)
        shown.append({**r, "result": views})
    return shown


def public_detail(reason: str, detail: str) -> str:
    """A participant's ``detail`` for non-owners: neutral for a forfeit."""
    if reason in ("", "normal"):
        return detail if detail.startswith(OPPONENT_FORFEITED) else ""
    return public_reason(reason, who="the agent")

"""Replays as plain data: each game's presenter turns a match's log into frames for one player.

A presenter is a function ``present(match: ReplayInput) -> Replay`` beside the game's engine,
named in the registry (key ``presenter``). It reads only the log entries it is given (already
filtered for the person watching: the public view of other seats, the viewer's own seat in full)
and returns JSON-ready data. The platform renders every game with one player; the
frames are built from a small set of widgets the player knows how to draw:

``{"kind": "board", "fen", "lastmove", "flip"}``  a chess-like board from a FEN placement;
``{"kind": "seats", "seats": [{"name", "facts": [[label, value]], "cards", "dice", "active"}]}``;
``{"kind": "cards", "label", "cards"}``  playing cards (``"As"``, ``"Td"``) or plain numbers;
``{"kind": "dice", "label", "dice"}``  die faces (``0`` is a hidden die);
``{"kind": "chat", "messages": [{"seat", "who", "text"}]}``;
``{"kind": "facts", "items": [[label, value]], "title"?}``;
``{"kind": "table", "head": [...], "rows": [[...]]}``;
``{"kind": "lines", "title", "lines": [str]}``.

Every frame is ``{"round", "label", "seq", "widgets"}`` (``seq``: the log entry it shows). A live
match grows by frames at the end; only the last frame may still change.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from games.core.record import LogEntry

Frame = dict[str, Any]
Widget = dict[str, Any]
T = TypeVar("T")


@dataclass(frozen=True)
class ReplayInput:
    """What a presenter is given: the log as the viewer may see it, and who sits where."""

    #: Log entries (the referee's per-call records) as the viewer may see them, in order.
    entries: Sequence[LogEntry]
    #: Display name per seat.
    names: Sequence[str]
    #: Seats the viewer owns (their agents): shown in full; the others are the public view.
    viewer_seats: frozenset[int] = frozenset()
    #: Whether the match is over (a live match may still grow).
    finished: bool = True
    #: The game's config as the match used it.
    config: Mapping[str, Any] = field(default_factory=dict)

    def name(self, seat: Any) -> str:
        """The display name of ``seat`` (``"seat N"`` when unknown)."""
        if isinstance(seat, int) and 0 <= seat < len(self.names):
            return self.names[seat]
        return f"seat {seat}"


@dataclass
class Replay:
    """A presenter's answer: frames to step through, a summary, and files to download."""

    frames: list[Frame] = field(default_factory=list)
    #: ``[[label, value]]`` shown beside the player (e.g. BB/100 over the match).
    summary: list[list[Any]] = field(default_factory=list)
    #: ``[{"filename", "mime", "text"}]`` offered as downloads (e.g. PGN).
    downloads: list[dict[str, str]] = field(default_factory=list)

    def add(self, round_no: Any, label: str, seq: Any, *widgets: Widget) -> Frame:
        """Append a frame and return it."""
        frame: Frame = {"round": round_no, "label": label, "seq": seq, "widgets": list(widgets)}
        self.frames.append(frame)
        return frame

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"frames": self.frames, "summary": self.summary, "downloads": self.downloads}

    def packed(self, start: int = 0) -> dict[str, Any]:
        """The frames from ``start`` on, each widget stored once: frames list indices into a
        ``widgets`` pool (a 100-hand poker match repeats the same seats and scores hundreds of
        times). The player unpacks them; ``start`` lets a live page fetch only what is new
        (from ``round_start``: a round's frames can change until the round is over)."""
        pool: list[Widget] = []
        index: dict[str, int] = {}
        frames = []
        for frame in self.frames[start:]:
            ids = []
            for widget in frame["widgets"]:
                key = json.dumps(widget, sort_keys=True, separators=(",", ":"), default=str)
                if key not in index:
                    index[key] = len(pool)
                    pool.append(widget)
                ids.append(index[key])
            frames.append([frame["round"], frame["label"], frame["seq"], ids])
        last_round = self.frames[-1]["round"] if self.frames else None
        round_start = len(self.frames)
        while round_start > 0 and self.frames[round_start - 1]["round"] == last_round:
            round_start -= 1
        return {
            "start": start,
            "total": len(self.frames),
            # Where the round still being played begins: its frames may be rebuilt as it ends.
            "round_start": round_start,
            "widgets": pool,
            "frames": frames,
            "summary": self.summary,
            "downloads": self.downloads,
        }


Presenter = Callable[[ReplayInput], Replay]


# --- helpers presenters share ----------------------------------------------------------------


def turns(entries: Sequence[LogEntry]) -> Iterator[LogEntry]:
    """The entries that changed the game: accepted ``on_turn`` calls and referee actions."""
    for entry in entries:
        if entry.get("action") is not None and entry.get("method") in ("on_turn", "referee"):
            yield entry


def steps(
    entries: Sequence[LogEntry],
) -> Iterator[tuple[LogEntry, dict[str, Any] | None]]:
    """The log in order as ``(entry, None)`` for each action taken and ``(entry, result)`` once
    per finished round whose result the viewer may see (seat 0's point of view)."""
    results = round_results(entries)
    ended: set[int] = set()
    for entry in entries:
        if entry.get("action") is not None and entry.get("method") in ("on_turn", "referee"):
            yield entry, None
        elif entry.get("method") == "on_round_end":
            round_no = entry.get("round")
            if isinstance(round_no, int) and round_no in results and round_no not in ended:
                ended.add(round_no)
                yield entry, results[round_no]


def payload(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The state sent with ``entry`` as the viewer may see it (empty when hidden)."""
    value = entry.get("payload")
    return dict(value) if isinstance(value, dict) else {}


def action_of(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The action applied by ``entry`` (empty when none or hidden)."""
    value = entry.get("action")
    return dict(value) if isinstance(value, dict) else {}


def swap_view(view: Mapping[str, Any]) -> dict[str, Any]:
    """A two-seat result seen from the other seat: ``your_*`` and ``opponent_*`` swapped, and
    ``"you"``/``"opponent"`` values swapped."""
    out: dict[str, Any] = {}
    for key, value in view.items():
        if key.startswith("your_"):
            key = "opponent_" + key.removeprefix("your_")
        elif key.startswith("opponent_"):
            key = "your_" + key.removeprefix("opponent_")
        if value == "you":
            value = "opponent"
        elif value == "opponent":
            value = "you"
        out[key] = value
    return out


def round_results(entries: Sequence[Mapping[str, Any]]) -> dict[int, dict[str, Any]]:
    """Each finished round's result from seat 0's point of view, keyed by round number.

    Read from the ``on_round_end`` payloads the viewer may see: seat 0's own, or seat 1's swapped.
    """
    views: dict[int, dict[int, dict[str, Any]]] = {}
    for entry in entries:
        if entry.get("method") != "on_round_end":
            continue
        data = payload(entry)
        seat = entry.get("seat")
        round_no = data.get("round", entry.get("round"))
        if data and isinstance(seat, int) and isinstance(round_no, int):
            views.setdefault(round_no, {})[seat] = data
    results: dict[int, dict[str, Any]] = {}
    for round_no, by_seat in views.items():
        if 0 in by_seat:
            results[round_no] = by_seat[0]
        elif 1 in by_seat:
            results[round_no] = swap_view(by_seat[1])
    return results


def number(value: Any) -> str:
    """A score as a person reads it: ``250``, ``-19,750``, ``0.5`` (never ``250.0``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "" if value is None else str(value)
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def said(action: Mapping[str, Any]) -> str | None:
    """The text of a talking action (``text`` or ``message``), else None."""
    for key in ("text", "message"):
        value = action.get(key)
        if isinstance(value, str):
            return value
    return None


def describe(action: Mapping[str, Any]) -> str:
    """An action in a few words: ``raise amount=300``, ``move e2e4``, ``pass``."""
    kind = action.get("type") or action.get("action_type") or "?"
    rest = {k: v for k, v in action.items() if k not in ("type", "action_type")}
    if not rest:
        return str(kind)
    return f"{kind} " + ", ".join(f"{k}={v}" for k, v in rest.items())


def scores_widget(match: ReplayInput, totals: Sequence[float]) -> Widget:
    """The match score so far, by seat name."""
    return {
        "kind": "facts",
        "title": "match score",
        "items": [[match.name(s), number(t)] for s, t in enumerate(totals)],
    }


def add_points(totals: list[float], result: Mapping[str, Any]) -> list[Any]:
    """A round's ``[your_points, opponent_points]`` from seat 0's point of view (as ``steps``
    gives its results), each number among them added to its seat's ``totals``."""
    points = [result.get("your_points"), result.get("opponent_points")]
    for seat, value in enumerate(points[: len(totals)]):
        if isinstance(value, int | float):
            totals[seat] += value
    return points


def nth(items: Sequence[T], index: int) -> T | None:
    """``items[index]``, or ``None`` when the viewer has not seen that many."""
    return items[index] if 0 <= index < len(items) else None


@dataclass
class RoundFrames:
    """One round of a two-seat game as ``present_rounds`` shows it. A game's subclass (a
    dataclass: the round's state its fields) gives the label and widgets of a frame per action
    taken (``action``) and of the round's end (``result``); the match score is added after them."""

    match: ReplayInput
    round_no: Any

    def action(self, entry: LogEntry) -> tuple[str, list[Widget]]:
        """The frame of an action taken (``entry``)."""
        raise NotImplementedError

    def result(self, result: dict[str, Any], points: list[Any]) -> tuple[str, list[Widget]]:
        """The frame of the round's end: its ``result`` from seat 0's point of view and its
        ``[your_points, opponent_points]``."""
        raise NotImplementedError


@dataclass
class TalkFrames(RoundFrames):
    """A round of a game with talk: the round's chat so far."""

    chat: list[dict[str, Any]] = field(default_factory=list, init=False)

    def heard(self, entry: LogEntry) -> bool:
        """Whether ``entry`` said something; if it did, the chat goes on with it (as a new list:
        the frames before keep the chat they showed)."""
        text = said(action_of(entry))
        if text is None:
            return False
        seat = entry.get("seat")
        self.chat = [*self.chat, {"seat": seat, "who": self.match.name(seat), "text": text}]
        return True

    def chat_widget(self) -> Widget:
        """The round's chat so far."""
        return {"kind": "chat", "messages": self.chat}


def present_rounds(
    match: ReplayInput, new_round: Callable[[ReplayInput, Any], RoundFrames]
) -> Replay:
    """The replay of a two-seat game played round by round: ``new_round(match, round_no)`` (a
    ``RoundFrames`` class, or a function making one) gives the frames of each round, a fresh one
    whenever the round changes; every frame ends with the match score the rounds add up to."""
    replay = Replay()
    totals = [0.0, 0.0]
    frames: RoundFrames | None = None
    current: Any = None
    for entry, result in steps(match.entries):
        round_no = entry.get("round")
        if frames is None or round_no != current:
            current, frames = round_no, new_round(match, round_no)
        if result is None:
            label, widgets = frames.action(entry)
        else:
            label, widgets = frames.result(result, add_points(totals, result))
        replay.add(round_no, label, entry.get("seq"), *widgets, scores_widget(match, totals))
    return replay


def generic_present(match: ReplayInput) -> Replay:
    """A replay for a game without its own presenter: one frame per action and per round end."""
    replay = Replay()
    totals = [0.0 for _ in match.names]
    results = round_results(match.entries)
    shown_rounds: set[int] = set()
    lines: list[str] = []
    current_round: Any = None
    for entry in match.entries:
        round_no = entry.get("round")
        if round_no != current_round:
            current_round, lines = round_no, []
        if entry.get("action") is not None and entry.get("method") in ("on_turn", "referee"):
            act = action_of(entry)
            text = said(act)
            line = (
                f"{match.name(entry.get('seat'))}: "
                f"{('“' + text + '”') if text is not None else describe(act)}"
            )
            lines = [*lines, line]
            replay.add(
                round_no,
                f"round {round_no}: {line[:60]}",
                entry.get("seq"),
                {"kind": "lines", "title": f"Round {round_no}", "lines": lines},
                scores_widget(match, totals),
            )
        elif entry.get("method") == "on_round_end" and isinstance(round_no, int):
            result = results.get(round_no)
            if result is None or round_no in shown_rounds:
                continue
            shown_rounds.add(round_no)
            add_points(totals, result)
            details = [
                [k.replace("_", " "), number(v) if isinstance(v, int | float) else str(v)]
                for k, v in result.items()
                if k not in ("round",)
            ]
            replay.add(
                round_no,
                f"round {round_no} ends",
                entry.get("seq"),
                {"kind": "lines", "title": f"Round {round_no}", "lines": lines},
                {"kind": "facts", "items": details},
                scores_widget(match, totals),
            )
    return replay


def with_own_calls(replay: Replay, entries: Sequence[LogEntry], seats: frozenset[int]) -> Replay:
    """Add to each frame what the viewer's own agents did since the previous frame: the time
    each call took, what they printed, why an answer was refused. Other seats never appear."""
    if not seats:
        return replay
    mine = [e for e in entries if e.get("seat") in seats and isinstance(e.get("seq"), int)]
    previous = -1
    for frame in replay.frames:
        seq = frame.get("seq")
        if not isinstance(seq, int):
            continue
        lines = []
        for entry in mine:
            if not previous < entry["seq"] <= seq:
                continue
            elapsed = entry.get("elapsed_ms")
            took = f" · {elapsed:.1f} ms" if isinstance(elapsed, int | float) else ""
            printed = str(entry.get("stdout") or "").rstrip("\n")
            if not (
                printed
                or entry.get("illegal")
                or entry.get("error")
                or entry.get("method") == "on_turn"
            ):
                continue
            lines.append(f"seat {entry.get('seat')} {entry.get('method')}{took}")
            lines += [f"| {text}" for text in printed[:2000].split("\n") if printed]
            if entry.get("illegal"):
                lines.append(f"! refused: {entry['illegal']}")
            elif entry.get("error"):
                lines.append(f"! {str(entry['error']).splitlines()[0]}")
        previous = max(previous, seq)
        if lines:
            frame["widgets"] = [
                *frame["widgets"],
                {"kind": "lines", "title": "your agent", "lines": lines},
            ]
    return replay

"""Bulls and Cows replays: each cycle's probes with their bulls and cows, the guesses, and the code
revealed when the round ends."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.core.presenter import (
    Replay,
    ReplayInput,
    RoundFrames,
    Widget,
    action_of,
    nth,
    number,
    payload,
    present_rounds,
)
from games.core.record import LogEntry

OUTCOMES = {"cracked": "cracked", "both": "cracked by both", "nobody": "not cracked"}


def present(match: ReplayInput) -> Replay:
    """A frame per probe and per guess; the round's end reveals the code."""
    answers = _answers(match.entries)
    return present_rounds(match, lambda m, r: _Round(m, r, answers))


@dataclass
class _Round(RoundFrames):
    #: Each seat's answers per round (the viewer's own, or all once public).
    answers: dict[tuple[Any, int], list[Any]]
    rows: list[list[str]] = field(default_factory=list, init=False)
    asked: list[int] = field(default_factory=lambda: [0, 0], init=False)

    def result(self, result: dict[str, Any], points: list[Any]) -> tuple[str, list[Widget]]:
        name = self.match.name
        outcome = str(result.get("outcome", ""))
        facts = {
            "kind": "facts",
            "items": [
                ["the code", str(result.get("code", "?"))],
                ["outcome", OUTCOMES.get(outcome, outcome)],
                ["cycles", number(result.get("cycles"))],
                [name(0), number(points[0])],
                [name(1), number(points[1])],
            ],
        }
        return f"round {self.round_no}: code {result.get('code', '?')}", [
            _probes(self.rows),
            facts,
        ]

    def action(self, entry: LogEntry) -> tuple[str, list[Widget]]:
        seat, who, round_no = entry.get("seat"), self.match.name(entry.get("seat")), self.round_no
        act = action_of(entry)
        kind = act.get("type")
        cycle = payload(entry).get("cycle", "")
        if kind == "question":
            code = str(act.get("code") or act.get("text") or "")
            answer = None
            if isinstance(seat, int) and seat in (0, 1):
                answer = nth(self.answers.get((round_no, seat), []), self.asked[seat])
                self.asked[seat] += 1
            shown = (
                f"{answer.get('bulls')} bulls, {answer.get('cows')} cows"
                if isinstance(answer, Mapping)
                else "(answered privately)"
            )
            self.rows = [*self.rows, [str(cycle), who, f"probes {code}", shown]]
            label = f"round {round_no}: {who} probes {code}"
        elif kind == "guess":
            code = str(act.get("code") or act.get("word") or "")
            self.rows = [*self.rows, [str(cycle), who, f"guesses {code}", ""]]
            label = f"round {round_no}: {who} guesses {code}"
        else:
            self.rows = [*self.rows, [str(cycle), who, "passes", ""]]
            label = f"round {round_no}: {who} passes"
        return label, [_probes(self.rows)]


def _probes(rows: list[list[str]]) -> dict[str, Any]:
    return {"kind": "table", "head": ["cycle", "who", "move", "answer"], "rows": rows}


def _answers(entries: Sequence[Mapping[str, Any]]) -> dict[tuple[Any, int], list[Any]]:
    """Each seat's answers per round, from the latest state of that round the viewer may see."""
    found: dict[tuple[Any, int], list[Any]] = {}
    for entry in entries:
        history = payload(entry).get("your_qa_history")
        seat = entry.get("seat")
        if isinstance(history, list) and isinstance(seat, int):
            key = (entry.get("round"), seat)
            if len(history) >= len(found.get(key, [])):
                found[key] = [h.get("answer") for h in history if isinstance(h, dict)]
    return found

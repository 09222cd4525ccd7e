"""Passcode replays: each cycle's probes with their bulls and cows, the guesses, and the code
revealed when the round ends."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.core.presenter import (
    Replay,
    ReplayInput,
    action_of,
    add_points,
    nth,
    number,
    payload,
    scores_widget,
    steps,
)

OUTCOMES = {"cracked": "cracked", "both": "cracked by both", "nobody": "not cracked"}


def present(match: ReplayInput) -> Replay:
    """A frame per probe and per guess; the round's end reveals the code."""
    replay = Replay()
    totals = [0.0, 0.0]
    answers = _answers(match.entries)
    rows: list[list[str]] = []
    asked = [0, 0]
    current: Any = None
    for entry, result in steps(match.entries):
        round_no, seat = entry.get("round"), entry.get("seat")
        if round_no != current:
            current, rows, asked = round_no, [], [0, 0]
        if result is not None:
            points = add_points(totals, result)
            outcome = str(result.get("outcome", ""))
            replay.add(
                round_no,
                f"round {round_no}: code {result.get('code', '?')}",
                entry.get("seq"),
                _probes(rows),
                {
                    "kind": "facts",
                    "items": [
                        ["the code", str(result.get("code", "?"))],
                        ["outcome", OUTCOMES.get(outcome, outcome)],
                        ["cycles", number(result.get("cycles"))],
                        [match.name(0), number(points[0])],
                        [match.name(1), number(points[1])],
                    ],
                },
                scores_widget(match, totals),
            )
            continue
        act = action_of(entry)
        kind = act.get("type")
        cycle = payload(entry).get("cycle", "")
        if kind == "question":
            code = str(act.get("code") or act.get("text") or "")
            answer = None
            if isinstance(seat, int) and seat in (0, 1):
                answer = nth(answers.get((round_no, seat), []), asked[seat])
                asked[seat] += 1
            shown = (
                f"{answer.get('bulls')} bulls, {answer.get('cows')} cows"
                if isinstance(answer, Mapping)
                else "(answered privately)"
            )
            rows = [*rows, [str(cycle), match.name(seat), f"probes {code}", shown]]
            label = f"round {round_no}: {match.name(seat)} probes {code}"
        elif kind == "guess":
            code = str(act.get("code") or act.get("word") or "")
            rows = [*rows, [str(cycle), match.name(seat), f"guesses {code}", ""]]
            label = f"round {round_no}: {match.name(seat)} guesses {code}"
        else:
            rows = [*rows, [str(cycle), match.name(seat), "passes", ""]]
            label = f"round {round_no}: {match.name(seat)} passes"
        replay.add(round_no, label, entry.get("seq"), _probes(rows), scores_widget(match, totals))
    return replay


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

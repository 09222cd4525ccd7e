"""Passcode replays: each player's questions with the keeper's answers, the guesses, and the
word once it is over. The log a viewer gets already hides the opponent's questions, answers and
guesses until the word is over (``PasscodeGame.public_payload``, the simultaneous phases)."""

from __future__ import annotations

from typing import Any

from games.core.presenter import (
    Replay,
    ReplayInput,
    Widget,
    action_of,
    add_points,
    number,
    payload,
    round_results,
    scores_widget,
)


def present(match: ReplayInput) -> Replay:
    """A frame per question or guess a viewer may see, per keeper answer, and per word's end."""
    replay = Replay()
    totals = [0.0, 0.0]
    results = round_results(match.entries)
    ended: set[int] = set()
    for entry in match.entries:
        round_no = entry.get("round")
        method = entry.get("method")
        seat = entry.get("seat")
        widgets: list[Widget]
        if method in ("on_turn", "referee") and "action" in entry:
            action = action_of(entry)  # empty while the word runs, for another player's seat
            kind = action.get("type") or "a sealed choice"
            text = action.get("text")
            shown = f"{kind}: {text}" if text else str(kind)
            label = f"word {round_no}: {match.name(seat)}"
            widgets = [{"kind": "lines", "title": match.name(seat), "lines": [shown]}]
        elif method == "judge":
            data = payload(entry)
            items = data.get("items") or []
            answer = data.get("answer")
            if not items or not isinstance(answer, dict):
                label = f"word {round_no}: the keeper answers {match.name(seat)} (private)"
                widgets = [
                    {"kind": "lines", "title": "keeper", "lines": ["(private until the word ends)"]}
                ]
            else:
                question = items[0].get("text") if isinstance(items[0], dict) else ""
                label = f"word {round_no}: the keeper answers {match.name(seat)}"
                widgets = [
                    {
                        "kind": "facts",
                        "title": "keeper",
                        "items": [
                            ["question", str(question)],
                            ["answer", str(answer.get("answer"))],
                        ],
                    }
                ]
        elif method == "on_round_end" and isinstance(round_no, int):
            result = results.get(round_no)
            if result is None or round_no in ended:
                continue
            ended.add(round_no)
            points = add_points(totals, result)
            widgets = [_result_facts(match, result, points)]
            for side, seat_no in (("your", 0), ("opponent", 1)):
                qa = result.get(f"{side}_qa_history") or []
                widgets.append(
                    {
                        "kind": "table",
                        "head": [f"{match.name(seat_no)} asked", "keeper"],
                        "rows": [[str(q.get("question")), str(q.get("answer"))] for q in qa],
                    }
                )
            label = f"word {round_no}: {result.get('word')}"
        else:
            continue
        replay.add(round_no, label, entry.get("seq"), *widgets, scores_widget(match, totals))
    return replay


def _result_facts(match: ReplayInput, result: dict[str, Any], points: list[Any]) -> Widget:
    winner = result.get("winner")
    who = {"you": match.name(0), "opponent": match.name(1), "both": "both"}.get(
        str(winner), "nobody"
    )
    return {
        "kind": "facts",
        "items": [
            ["word", str(result.get("word"))],
            ["solved by", who],
            [f"{match.name(0)} guessed", ", ".join(result.get("your_guesses") or []) or "-"],
            [f"{match.name(1)} guessed", ", ".join(result.get("opponent_guesses") or []) or "-"],
            [match.name(0), number(points[0])],
            [match.name(1), number(points[1])],
        ],
    }

"""Nuclear-war replays: each crisis's talk as a chat, sealed stands and yields, then the outcome:
who stood, who yielded, or war."""

from __future__ import annotations

from typing import Any

from games.core.presenter import (
    Replay,
    ReplayInput,
    action_of,
    add_points,
    number,
    payload,
    said,
    scores_widget,
    steps,
)

OUTCOMES = {"you_stood": "{0} stood, {1} yielded", "opponent_stood": "{1} stood, {0} yielded"}


def present(match: ReplayInput) -> Replay:
    """A frame per message and per sealed choice; the crisis's end shows every step's choices."""
    replay = Replay()
    totals = [0.0, 0.0]
    chat: list[dict[str, Any]] = []
    sealed: list[str] = []
    current: Any = None
    level: Any = 0
    for entry, result in steps(match.entries):
        round_no, seat = entry.get("round"), entry.get("seat")
        if round_no != current:
            current, chat, sealed, level = round_no, [], [], 0
        if result is not None:
            points = add_points(totals, result)
            mine, theirs = result.get("your_choices") or [], result.get("opponent_choices") or []
            outcome = str(result.get("outcome", ""))
            text = OUTCOMES.get(outcome, outcome.replace("_", " ")).format(
                match.name(0), match.name(1)
            )
            replay.add(
                round_no,
                f"crisis {round_no}: {text}",
                entry.get("seq"),
                {"kind": "chat", "messages": chat},
                {
                    "kind": "table",
                    "head": ["step", match.name(0), match.name(1)],
                    "rows": [
                        [str(i + 1), str(a), str(b)]
                        for i, (a, b) in enumerate(zip(mine, theirs, strict=False))
                    ],
                },
                {
                    "kind": "facts",
                    "items": [
                        ["outcome", text],
                        ["war threshold", number(result.get("threshold"))],
                        ["escalation reached", number(result.get("escalation_level"))],
                        [match.name(0), number(points[0])],
                        [match.name(1), number(points[1])],
                    ],
                },
                scores_widget(match, totals),
            )
            continue
        state = payload(entry)
        if "escalation_level" in state:
            level = state["escalation_level"]
        message = said(action_of(entry))
        if message is not None:
            sealed = []
            chat = [*chat, {"seat": seat, "who": match.name(seat), "text": message}]
            label = f"crisis {round_no}: {match.name(seat)} says"
        else:
            sealed = [*sealed, f"{match.name(seat)} has chosen stand or yield (sealed)"]
            label = f"crisis {round_no}: {match.name(seat)} chooses"
        widgets: list[dict[str, Any]] = [
            {"kind": "chat", "messages": chat},
            {"kind": "facts", "items": [["escalation level", number(level)]]},
        ]
        if sealed:
            widgets.append({"kind": "lines", "title": "sealed choices", "lines": sealed})
        widgets.append(scores_widget(match, totals))
        replay.add(round_no, label, entry.get("seq"), *widgets)
    return replay

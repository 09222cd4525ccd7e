"""Split-or-steal replays: each round's negotiation as a chat, then both choices revealed."""

from __future__ import annotations

from typing import Any

from games.core.presenter import (
    Replay,
    ReplayInput,
    action_of,
    add_points,
    number,
    said,
    scores_widget,
    steps,
)


def present(match: ReplayInput) -> Replay:
    """A frame per message and per sealed choice; the round's end reveals both choices."""
    replay = Replay()
    totals = [0.0, 0.0]
    chat: list[dict[str, Any]] = []
    chosen: list[str] = []
    current: Any = None
    for entry, result in steps(match.entries):
        round_no, seat = entry.get("round"), entry.get("seat")
        if round_no != current:
            current, chat, chosen = round_no, [], []
        if result is not None:
            points = add_points(totals, result)
            choices = [result.get("your_choice"), result.get("opponent_choice")]
            replay.add(
                round_no,
                f"round {round_no}: {choices[0]} / {choices[1]}",
                entry.get("seq"),
                {"kind": "chat", "messages": chat},
                {
                    "kind": "table",
                    "head": ["", "choice", "points"],
                    "rows": [[match.name(s), str(choices[s]), number(points[s])] for s in (0, 1)],
                },
                scores_widget(match, totals),
            )
            continue
        text = said(action_of(entry))
        if text is not None:
            chat = [*chat, {"seat": seat, "who": match.name(seat), "text": text}]
            label = f"round {round_no}: {match.name(seat)} says"
        else:
            chosen = [*chosen, match.name(seat)]
            label = f"round {round_no}: {match.name(seat)} chooses"
        widgets: list[dict[str, Any]] = [{"kind": "chat", "messages": chat}]
        if chosen:
            widgets.append(
                {
                    "kind": "lines",
                    "title": "sealed choices",
                    "lines": [f"{who} has chosen (hidden until both have)" for who in chosen],
                }
            )
        widgets.append(scores_widget(match, totals))
        replay.add(round_no, label, entry.get("seq"), *widgets)
    return replay

"""NIL-recruitment replays: the recruit, both schools' pitches as a chat, sealed offers, then the
offers and fits revealed and who signed the recruit."""

from __future__ import annotations

from collections.abc import Mapping
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


def present(match: ReplayInput) -> Replay:
    """A frame per pitch and per sealed offer; the round's end shows offers, fits and winner."""
    replay = Replay()
    totals = [0.0, 0.0]
    recruits = _recruits(match.entries)
    chat: list[dict[str, Any]] = []
    sealed: list[str] = []
    current: Any = None
    for entry, result in steps(match.entries):
        round_no, seat = entry.get("round"), entry.get("seat")
        if round_no != current:
            current, chat, sealed = round_no, [], []
        recruit = _recruit_widget(recruits.get(round_no))
        if result is not None:
            points = add_points(totals, result)
            winner = result.get("winner")
            signed = match.name(0) if winner == "you" else match.name(1)
            rows = [
                [
                    match.name(s),
                    number(result.get(f"{side}_offer")),
                    number(result.get(f"{side}_fit")),
                    number(points[s]),
                    number(result.get(f"{side}_budget")),
                ]
                for s, side in ((0, "your"), (1, "opponent"))
            ]
            replay.add(
                round_no,
                f"recruit {round_no}: {signed} signs",
                entry.get("seq"),
                recruit,
                {"kind": "chat", "messages": chat},
                {
                    "kind": "table",
                    "head": ["school", "offer", "fit", "points", "budget left"],
                    "rows": rows,
                },
                {
                    "kind": "facts",
                    "items": [["signed by", signed], ["value", number(result.get("value"))]],
                },
                scores_widget(match, totals),
            )
            continue
        text = said(action_of(entry))
        if text is not None:
            chat = [*chat, {"seat": seat, "who": match.name(seat), "text": text}]
            label = f"recruit {round_no}: {match.name(seat)} pitches"
        else:
            sealed = [*sealed, f"{match.name(seat)} has made a sealed offer"]
            label = f"recruit {round_no}: {match.name(seat)} offers"
        widgets = [recruit, {"kind": "chat", "messages": chat}]
        if sealed:
            widgets.append({"kind": "lines", "title": "sealed offers", "lines": sealed})
        widgets.append(scores_widget(match, totals))
        replay.add(round_no, label, entry.get("seq"), *widgets)
    return replay


def _recruits(entries: Any) -> dict[Any, Mapping[str, Any]]:
    """Each round's recruit, from whichever state sent that round the viewer may see."""
    found: dict[Any, Mapping[str, Any]] = {}
    for entry in entries:
        recruit = payload(entry).get("recruit")
        if isinstance(recruit, dict) and entry.get("round") not in found:
            found[entry.get("round")] = recruit
    return found


def _recruit_widget(recruit: Mapping[str, Any] | None) -> dict[str, Any]:
    if not recruit:
        return {"kind": "facts", "items": [["recruit", "(not shown)"]]}
    return {
        "kind": "facts",
        "items": [
            ["recruit", f"{recruit.get('name', '?')}, {recruit.get('position', '?')}"],
            ["value", number(recruit.get("value"))],
            ["cares about", ", ".join(map(str, recruit.get("priorities") or []))],
            ["worries", ", ".join(map(str, recruit.get("concerns") or []))],
        ],
    }

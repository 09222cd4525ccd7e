"""NIL-recruitment replays: the recruit, both schools' pitches as a chat, sealed offers, then the
offers and fits revealed and who signed the recruit."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.core.presenter import (
    Replay,
    ReplayInput,
    TalkFrames,
    Widget,
    number,
    payload,
    present_rounds,
)
from games.core.record import LogEntry


def present(match: ReplayInput) -> Replay:
    """A frame per pitch and per sealed offer; the round's end shows offers, fits and winner."""
    recruits = _recruits(match.entries)
    return present_rounds(match, lambda m, r: _Round(m, r, _recruit_widget(recruits.get(r))))


@dataclass
class _Round(TalkFrames):
    recruit: Widget
    sealed: list[str] = field(default_factory=list, init=False)

    def result(self, result: dict[str, Any], points: list[Any]) -> tuple[str, list[Widget]]:
        name = self.match.name
        signed = name(0) if result.get("winner") == "you" else name(1)
        rows = [
            [
                name(s),
                number(result.get(f"{side}_offer")),
                number(result.get(f"{side}_fit")),
                number(points[s]),
                number(result.get(f"{side}_budget")),
            ]
            for s, side in ((0, "your"), (1, "opponent"))
        ]
        return f"recruit {self.round_no}: {signed} signs", [
            self.recruit,
            self.chat_widget(),
            {
                "kind": "table",
                "head": ["school", "offer", "fit", "points", "budget left"],
                "rows": rows,
            },
            {
                "kind": "facts",
                "items": [["signed by", signed], ["value", number(result.get("value"))]],
            },
        ]

    def action(self, entry: LogEntry) -> tuple[str, list[Widget]]:
        who = self.match.name(entry.get("seat"))
        if self.heard(entry):
            label = f"recruit {self.round_no}: {who} pitches"
        else:
            self.sealed = [*self.sealed, f"{who} has made a sealed offer"]
            label = f"recruit {self.round_no}: {who} offers"
        widgets = [self.recruit, self.chat_widget()]
        if self.sealed:
            widgets.append({"kind": "lines", "title": "sealed offers", "lines": self.sealed})
        return label, widgets


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

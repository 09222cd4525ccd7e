"""Nuclear-war replays: each crisis's talk as a chat, sealed stands and yields, then the outcome:
who stood, who yielded, or war."""

from __future__ import annotations

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

OUTCOMES = {"you_stood": "{0} stood, {1} yielded", "opponent_stood": "{1} stood, {0} yielded"}


def present(match: ReplayInput) -> Replay:
    """A frame per message and per sealed choice; the crisis's end shows every step's choices."""
    return present_rounds(match, _Crisis)


@dataclass
class _Crisis(TalkFrames):
    sealed: list[str] = field(default_factory=list, init=False)
    #: The escalation level last shown to the viewer.
    level: Any = field(default=0, init=False)

    def result(self, result: dict[str, Any], points: list[Any]) -> tuple[str, list[Widget]]:
        name = self.match.name
        mine, theirs = result.get("your_choices") or [], result.get("opponent_choices") or []
        outcome = str(result.get("outcome", ""))
        text = OUTCOMES.get(outcome, outcome.replace("_", " ")).format(name(0), name(1))
        return f"crisis {self.round_no}: {text}", [
            self.chat_widget(),
            {
                "kind": "table",
                "head": ["step", name(0), name(1)],
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
                    [name(0), number(points[0])],
                    [name(1), number(points[1])],
                ],
            },
        ]

    def action(self, entry: LogEntry) -> tuple[str, list[Widget]]:
        who = self.match.name(entry.get("seat"))
        state = payload(entry)
        if "escalation_level" in state:
            self.level = state["escalation_level"]
        if self.heard(entry):
            self.sealed = []
            label = f"crisis {self.round_no}: {who} says"
        else:
            self.sealed = [*self.sealed, f"{who} has chosen stand or yield (sealed)"]
            label = f"crisis {self.round_no}: {who} chooses"
        widgets: list[Widget] = [
            self.chat_widget(),
            {"kind": "facts", "items": [["escalation level", number(self.level)]]},
        ]
        if self.sealed:
            widgets.append({"kind": "lines", "title": "sealed choices", "lines": self.sealed})
        return label, widgets

"""Split-or-steal replays: each round's negotiation as a chat, then both choices revealed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.core.presenter import (
    Replay,
    ReplayInput,
    TalkFrames,
    Widget,
    number,
    present_rounds,
)
from games.core.record import LogEntry


def present(match: ReplayInput) -> Replay:
    """A frame per message and per sealed choice; the round's end reveals both choices."""
    return present_rounds(match, _Round)


@dataclass
class _Round(TalkFrames):
    chosen: list[str] = field(default_factory=list, init=False)

    def result(self, result: dict[str, Any], points: list[Any]) -> tuple[str, list[Widget]]:
        name = self.match.name
        choices = [result.get("your_choice"), result.get("opponent_choice")]
        return f"round {self.round_no}: {choices[0]} / {choices[1]}", [
            self.chat_widget(),
            {
                "kind": "table",
                "head": ["", "choice", "points"],
                "rows": [[name(s), str(choices[s]), number(points[s])] for s in (0, 1)],
            },
        ]

    def action(self, entry: LogEntry) -> tuple[str, list[Widget]]:
        who = self.match.name(entry.get("seat"))
        if self.heard(entry):
            label = f"round {self.round_no}: {who} says"
        else:
            self.chosen = [*self.chosen, who]
            label = f"round {self.round_no}: {who} chooses"
        widgets = [self.chat_widget()]
        if self.chosen:
            widgets.append(
                {
                    "kind": "lines",
                    "title": "sealed choices",
                    "lines": [f"{c} has chosen (hidden until both have)" for c in self.chosen],
                }
            )
        return label, widgets

"""Simple-card replays: each player's card goes down face down, then both are turned over."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.core.presenter import (
    Replay,
    ReplayInput,
    RoundFrames,
    Widget,
    number,
    payload,
    present_rounds,
)
from games.core.record import LogEntry


def present(match: ReplayInput) -> Replay:
    """A frame per card played (hidden until both are down) and per round's reveal."""
    return present_rounds(match, _Round)


@dataclass
class _Round(RoundFrames):
    played: list[str] = field(default_factory=list, init=False)

    def result(self, result: dict[str, Any], points: list[Any]) -> tuple[str, list[Widget]]:
        cards = [result.get("your_card"), result.get("opponent_card")]
        seats = {
            "kind": "seats",
            "seats": [
                {
                    "name": self.match.name(s),
                    "cards": [str(cards[s])],
                    "facts": [["points", number(points[s])]],
                }
                for s in (0, 1)
            ],
        }
        return f"round {self.round_no}: {cards[0]} vs {cards[1]}", [seats]

    def action(self, entry: LogEntry) -> tuple[str, list[Widget]]:
        seat = entry.get("seat")
        self.played = [*self.played, self.match.name(seat)]
        hand = payload(entry).get("hand")
        widgets: list[Widget] = [
            {
                "kind": "lines",
                "title": f"round {self.round_no}",
                "lines": [f"{who} plays a card face down" for who in self.played],
            }
        ]
        if isinstance(hand, list):
            widgets.append(
                {
                    "kind": "cards",
                    "label": f"{self.match.name(seat)}'s hand",
                    "cards": [str(c) for c in hand],
                }
            )
        return f"round {self.round_no}: {self.match.name(seat)} plays", widgets

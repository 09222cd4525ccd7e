"""Liar's dice replays: the bids of each round, every challenge with both hands revealed, and
the dice each player has left."""

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

#: Quantities as words, so a bid reads as a sentence ("five 6s"), not as a product ("5 × 6").
NUMBER_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
)


#: The bids list's title says how to read a bid.
BIDS_TITLE = "bids (“five 6s”: at least five dice on the table show 6, 1s counting as any face)"


def bid_words(quantity: Any, face: Any) -> str:
    """A bid as people say it: ``five 6s`` (at least five dice show 6, 1s wild), ``one 3``."""
    if not isinstance(quantity, int) or isinstance(quantity, bool) or not isinstance(face, int):
        return f"{quantity} dice showing {face}"
    count = NUMBER_WORDS[quantity] if 0 <= quantity < len(NUMBER_WORDS) else str(quantity)
    return f"{count} {face}" if quantity == 1 else f"{count} {face}s"


def present(match: ReplayInput) -> Replay:
    """A frame per bid and per challenge (with the reveal when the viewer may see it)."""
    reveals = _reveals(match.entries)
    return present_rounds(match, lambda m, r: _Round(m, r, reveals.get(r, [])))


@dataclass
class _Round(RoundFrames):
    #: The round's challenges with both hands, as far as the viewer may see them.
    reveals: list[Mapping[str, Any]]
    bids: list[str] = field(default_factory=list, init=False)
    dice_left: list[int] = field(default_factory=lambda: [5, 5], init=False)
    challenges: int = field(default=0, init=False)

    def result(self, result: dict[str, Any], points: list[Any]) -> tuple[str, list[Widget]]:
        name = self.match.name
        winner = name(0) if result.get("winner") == "you" else name(1)
        facts = {
            "kind": "facts",
            "items": [
                ["round won by", winner],
                [f"{name(0)} dice left", number(result.get("your_dice_left"))],
                [f"{name(1)} dice left", number(result.get("opponent_dice_left"))],
            ],
        }
        return f"round {self.round_no}: {winner} wins", [facts]

    def action(self, entry: LogEntry) -> tuple[str, list[Widget]]:
        name, seat, round_no = self.match.name, entry.get("seat"), self.round_no
        act = action_of(entry)
        state = payload(entry)
        own = state.get("your_dice") if isinstance(state.get("your_dice"), list) else None
        widgets: list[Widget] = []
        if act.get("type") == "challenge":
            reveal = nth(self.reveals, self.challenges)
            self.challenges += 1
            label = f"round {round_no}: {name(seat)} challenges"
            self.bids = [*self.bids, f"{name(seat)} challenges"]
            widgets.append({"kind": "lines", "title": BIDS_TITLE, "lines": self.bids})
            if reveal is not None:
                loser = name(0) if reveal.get("loser") == "you" else name(1)
                self.dice_left[0 if reveal.get("loser") == "you" else 1] -= 1
                bid = reveal.get("bid") or {}
                widgets += [
                    {"kind": "dice", "label": name(0), "dice": list(reveal.get("your_dice") or [])},
                    {
                        "kind": "dice",
                        "label": name(1),
                        "dice": list(reveal.get("opponent_dice") or []),
                    },
                    {
                        "kind": "facts",
                        "items": [
                            ["bid", bid_words(bid.get("quantity"), bid.get("face"))],
                            ["counted (1s wild)", number(reveal.get("count"))],
                            ["loses a die", loser],
                        ],
                    },
                ]
            else:
                widgets.append(
                    {"kind": "facts", "items": [["reveal", "shown when the round ends"]]}
                )
        else:
            bid_text = bid_words(act.get("quantity"), act.get("face"))
            label = f"round {round_no}: {name(seat)} bids {bid_text}"
            self.bids = [*self.bids, f"{name(seat)}: {bid_text}"]
            widgets.append({"kind": "lines", "title": BIDS_TITLE, "lines": self.bids})
            if own is not None:
                widgets.append({"kind": "dice", "label": f"{name(seat)} (own dice)", "dice": own})
        widgets.append(
            {
                "kind": "facts",
                "items": [[f"{name(s)} dice", number(self.dice_left[s])] for s in (0, 1)],
            }
        )
        return label, widgets


def _reveals(entries: Sequence[Mapping[str, Any]]) -> dict[Any, list[Mapping[str, Any]]]:
    """Each round's challenges with both hands, from seat 0's point of view, from the longest
    list the viewer may see (a later state of the round, or its result)."""
    found: dict[Any, list[Mapping[str, Any]]] = {}
    for entry in entries:
        state = payload(entry)
        items = state.get("reveals")
        if not isinstance(items, list):
            continue
        if entry.get("seat") == 1:
            items = [_swap(r) for r in items if isinstance(r, dict)]
        if len(items) > len(found.get(entry.get("round"), [])):
            found[entry.get("round")] = items
    return found


def _swap(reveal: Mapping[str, Any]) -> dict[str, Any]:
    from games.core.presenter import swap_view

    out = swap_view(reveal)
    if isinstance(reveal.get("bid"), dict):
        out["bid"] = swap_view(reveal["bid"])
    return out

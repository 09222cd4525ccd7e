"""Simple-card replays: each player's card goes down face down, then both are turned over."""

from __future__ import annotations

from typing import Any

from games.core.presenter import (
    Replay,
    ReplayInput,
    add_points,
    number,
    payload,
    scores_widget,
    steps,
)


def present(match: ReplayInput) -> Replay:
    """A frame per card played (hidden until both are down) and per round's reveal."""
    replay = Replay()
    totals = [0.0, 0.0]
    played: list[str] = []
    current: Any = None
    for entry, result in steps(match.entries):
        round_no, seat = entry.get("round"), entry.get("seat")
        if round_no != current:
            current, played = round_no, []
        if result is not None:
            points = add_points(totals, result)
            cards = [result.get("your_card"), result.get("opponent_card")]
            replay.add(
                round_no,
                f"round {round_no}: {cards[0]} vs {cards[1]}",
                entry.get("seq"),
                {
                    "kind": "seats",
                    "seats": [
                        {
                            "name": match.name(s),
                            "cards": [str(cards[s])],
                            "facts": [["points", number(points[s])]],
                        }
                        for s in (0, 1)
                    ],
                },
                scores_widget(match, totals),
            )
            continue
        played = [*played, match.name(seat)]
        hand = payload(entry).get("hand")
        widgets: list[dict[str, Any]] = [
            {
                "kind": "lines",
                "title": f"round {round_no}",
                "lines": [f"{who} plays a card face down" for who in played],
            }
        ]
        if isinstance(hand, list):
            widgets.append(
                {
                    "kind": "cards",
                    "label": f"{match.name(seat)}'s hand",
                    "cards": [str(c) for c in hand],
                }
            )
        widgets.append(scores_widget(match, totals))
        replay.add(
            round_no, f"round {round_no}: {match.name(seat)} plays", entry.get("seq"), *widgets
        )
    return replay

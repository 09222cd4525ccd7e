"""Poker replays: a table per street (cards drawn as cards, stacks, pot, the street's actions),
then the showdown, with BB/100 over the match so far."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.presenter import (
    Replay,
    ReplayInput,
    Widget,
    add_points,
    number,
    payload,
    round_results,
    turns,
)

STREETS = ("preflop", "flop", "turn", "river")
BOARD_SIZE = {"preflop": 0, "flop": 3, "turn": 4, "river": 5}
VERBS = {
    "small_blind": "posts the small blind",
    "big_blind": "posts the big blind",
    "fold": "folds",
    "check": "checks",
    "call": "calls",
    "bet": "bets",
    "raise": "raises to",
    "all_in": "goes all in to",
}


def present(match: ReplayInput) -> Replay:
    """Frames per hand and street; a hand still being played shows what is known so far."""
    replay = Replay()
    stack0 = int(match.config.get("starting_stack", 20_000))
    big_blind = int(match.config.get("big_blind", 100))
    results = round_results(match.entries)
    net = [0.0 for _ in match.names]
    hands_done = 0
    by_hand: dict[int, list[Mapping[str, Any]]] = {}
    for entry in turns(match.entries):
        if isinstance(entry.get("round"), int):
            by_hand.setdefault(int(entry["round"]), []).append(entry)
    for hand in sorted(set(by_hand) | set(results)):
        result = results.get(hand)
        hand_turns = by_hand.get(hand, [])
        seq = hand_turns[-1].get("seq") if hand_turns else None
        hand_view = _hand_view(match, hand_turns, result)
        committed = [0, 0]
        street_bets = [0, 0]
        for street in STREETS:
            acts = [a for a in hand_view["actions"] if a["street"] == street]
            if not acts:
                continue
            street_bets = [0, 0]
            lines = []
            for a in acts:
                seat, kind, amount = a["seat"], a["type"], a.get("amount")
                if isinstance(amount, int) and seat in (0, 1):
                    if kind == "call":
                        street_bets[seat] += amount
                        committed[seat] += amount
                    elif kind in ("small_blind", "big_blind", "bet", "raise", "all_in"):
                        committed[seat] += amount - street_bets[seat]
                        street_bets[seat] = amount
                shown = f" {number(amount)}" if isinstance(amount, int) and kind != "call" else ""
                if kind == "call" and isinstance(amount, int):
                    shown = f" {number(amount)}"
                lines.append(f"{match.name(seat)} {VERBS.get(kind, kind)}{shown}")
            replay.add(
                hand,
                f"hand {hand} · {street}",
                seq,
                _table(match, hand_view, stack0, committed),
                _board(hand_view, BOARD_SIZE[street]),
                {"kind": "facts", "items": [["pot", number(sum(committed))]]},
                {"kind": "lines", "title": street, "lines": lines},
            )
        if result is None:
            continue
        hands_done += 1
        points = add_points(net, result)
        outcome = []
        if result.get("showdown"):
            outcome.append(
                [
                    "showdown",
                    f"{match.name(0)}: {result.get('your_hand', '?')} · "
                    f"{match.name(1)}: {result.get('opponent_hand', '?')}",
                ]
            )
        outcome.append(["result", _winner_line(match, points, result.get("pot"))])
        for seat in range(len(match.names)):
            outcome.append(
                [
                    f"{match.name(seat)} BB/100 so far",
                    number(_bb100(net[seat], big_blind, hands_done)),
                ]
            )
        # The hand is settled: each stack is the starting one plus what the hand won (the pot
        # just won is in the winner's stack, not still out on the table).
        settled = [
            -int(value) if isinstance(value, int | float) else committed[seat]
            for seat, value in enumerate(points)
        ]
        replay.add(
            hand,
            f"hand {hand} · {'showdown' if result.get('showdown') else 'end'}",
            seq,
            _table(match, hand_view, stack0, settled),
            _board(hand_view, 5 if result.get("showdown") else -1),
            {"kind": "facts", "items": [["pot", number(result.get("pot"))], *outcome]},
        )
    if hands_done:
        for seat in range(len(match.names)):
            replay.summary.append(
                [
                    f"{match.name(seat)}: BB/100 over {hands_done} hands",
                    number(_bb100(net[seat], big_blind, hands_done)),
                ]
            )
    return replay


def _bb100(net_chips: float, big_blind: int, hands: int) -> float:
    return round(net_chips / big_blind / hands * 100, 2) if hands else 0.0


def _winner_line(match: ReplayInput, points: list[Any], pot: Any) -> str:
    mine = points[0] if isinstance(points[0], int | float) else 0
    if mine > 0:
        return f"{match.name(0)} wins {number(mine)} (pot {number(pot)})"
    if mine < 0:
        return f"{match.name(1)} wins {number(-mine)} (pot {number(pot)})"
    return f"split pot {number(pot)}"


def _hand_view(
    match: ReplayInput, hand_turns: list[Mapping[str, Any]], result: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Actions, board, button and hole cards of one hand, as far as the viewer may know them."""
    cards: list[list[str] | None] = [None, None]
    board: list[str] = []
    button: int | None = None
    for entry in hand_turns:
        state = payload(entry)
        seat = entry.get("seat")
        if state and isinstance(seat, int) and seat in (0, 1):
            if state.get("your_cards"):
                cards[seat] = list(state["your_cards"])
            if len(state.get("board") or []) > len(board):
                board = list(state["board"])
            if state.get("button") in ("you", "opponent"):
                button = seat if state["button"] == "you" else 1 - seat
    if result is not None:
        actions = [
            {
                "seat": 0 if a.get("player") == "you" else 1,
                "street": a.get("street", "preflop"),
                "type": a.get("type") or a.get("action_type"),
                "amount": a.get("amount"),
            }
            for a in result.get("actions") or []
            if isinstance(a, dict)
        ]
        if result.get("your_cards"):
            cards[0] = list(result["your_cards"])
        if result.get("opponent_cards"):
            cards[1] = list(result["opponent_cards"])
        if len(result.get("board") or []) > len(board):
            board = list(result["board"])
        if result.get("button") in ("you", "opponent"):
            button = 0 if result["button"] == "you" else 1
    else:
        actions = []
        for entry in hand_turns:
            act = entry.get("action") or {}
            state = payload(entry)
            actions.append(
                {
                    "seat": entry.get("seat"),
                    "street": state.get("street", "preflop"),
                    "type": act.get("type"),
                    "amount": act.get("amount"),
                }
            )
    return {"actions": actions, "cards": cards, "board": board, "button": button}


def _table(
    match: ReplayInput,
    hand: Mapping[str, Any],
    stack0: int,
    committed: list[int],
) -> Widget:
    seats = []
    for seat in (0, 1):
        known = hand["cards"][seat]
        mark = " (button)" if hand["button"] == seat else ""
        seats.append(
            {
                "name": match.name(seat) + mark,
                "cards": known if known else ["??", "??"],
                "facts": [["stack", number(stack0 - committed[seat])]],
            }
        )
    return {"kind": "seats", "seats": seats}


def _board(hand: Mapping[str, Any], board_cards: int) -> Widget:
    board = hand["board"] if board_cards < 0 else hand["board"][:board_cards]
    return {"kind": "cards", "label": "board", "cards": board}

"""Readable replays built from a match's log: moves per round for every game, plus a board for
chess (python-chess SVG) and the round results each game reports (hands, reveals, splits)."""

from __future__ import annotations

import json
from typing import Any

from django.utils.safestring import SafeString


def _short(value: Any) -> str:
    if isinstance(value, dict):
        kind = value.get("type") or value.get("action_type")
        rest = {k: v for k, v in value.items() if k not in ("type", "action_type")}
        if kind and not rest:
            return str(kind)
        if kind:
            return f"{kind} " + ", ".join(f"{k}={v}" for k, v in rest.items())
    return json.dumps(value, default=str)


def _said(action: Any) -> str | None:
    if isinstance(action, dict):
        for key in ("text", "message"):
            if isinstance(action.get(key), str):
                return str(action[key])
    return None


def replay_moves(entries: list[dict[str, Any]], names: dict[int, str]) -> list[dict[str, Any]]:
    """One row per applied action, in order: round, who, what (a transcript for every game)."""
    rows = []
    for e in entries:
        if e.get("action") is None:
            continue
        rows.append(
            {
                "round": e.get("round"),
                "turn": e.get("turn"),
                "seat": e.get("seat"),
                "who": names.get(e.get("seat"), "referee")
                if e.get("method") != "referee"
                else "referee",
                "action": _short(e["action"]),
                # Negotiation games send talk as "text" (or "message"): show it as a transcript.
                "message": _said(e["action"]),
            }
        )
    return rows


def chess_boards(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The position after each move, as SVG (python-chess), one board per game (round)."""
    import chess
    import chess.svg

    frames: list[dict[str, Any]] = []
    board, current_round = None, None
    for e in entries:
        action = e.get("action")
        if not isinstance(action, dict) or e.get("method") == "referee":
            continue
        uci = action.get("move") or action.get("uci")
        if not isinstance(uci, str):
            continue
        if board is None or e.get("round") != current_round:
            board, current_round = chess.Board(), e.get("round")
            frames.append(
                {
                    "round": current_round,
                    "ply": 0,
                    "move": "start",
                    "svg": SafeString(chess.svg.board(board, size=280)),
                }
            )
        try:
            move = chess.Move.from_uci(uci)
            san = board.san(move)
            board.push(move)
        except ValueError:
            continue
        frames.append(
            {
                "round": current_round,
                "ply": board.ply(),
                "move": san,
                # python-chess builds this SVG from the board alone: no user text inside.
                "svg": SafeString(chess.svg.board(board, size=280, lastmove=move)),
            }
        )
    return frames


def poker_hands(rounds: list[dict[str, Any]], names: dict[int, str]) -> list[dict[str, Any]]:
    """A hand log: cards, board, betting and the result of every hand, from seat 0's view."""
    hands = []
    for r in rounds:
        view = (r.get("result") or {}).get("p0")
        if not isinstance(view, dict):
            continue
        other = (r.get("result") or {}).get("p1")
        other = other if isinstance(other, dict) else {}
        me, them = names.get(0, "seat 0"), names.get(1, "seat 1")
        actions = []
        for a in view.get("actions") or []:
            who = me if a.get("player") == "you" else them
            amount = f" {a['amount']}" if a.get("amount") else ""
            actions.append(
                f"{a.get('street', '')}: {who} {a.get('action') or a.get('type')}{amount}"
            )
        hands.append(
            {
                "hand": r.get("round"),
                "button": me if view.get("button") == "you" else them,
                # Each seat's cards from its own result: the rounds reach here in the viewer's
                # view, where a seat's mucked cards are blanked unless it is theirs.
                "cards": {
                    me: " ".join(view.get("your_cards") or other.get("opponent_cards") or [])
                    or "(mucked)",
                    them: " ".join(other.get("your_cards") or view.get("opponent_cards") or [])
                    or "(mucked)",
                },
                "board": " ".join(view.get("board") or []),
                "actions": actions,
                "result": f"{me} {view.get('result', '')} {view.get('your_points', '')}"
                + (
                    f" (showdown: {view.get('your_hand')} vs {view.get('opponent_hand')})"
                    if view.get("showdown")
                    else ""
                ),
                "pot": view.get("pot"),
            }
        )
    return hands


def round_rows(rounds: list[dict[str, Any]], names: dict[int, str]) -> list[dict[str, Any]]:
    """Round results in words: each seat's points, then what the round revealed, by name.

    The game reports each round from every seat's point of view; seat 0's view, with "your" and
    "opponent" replaced by the seats' names, says everything once.
    """
    me, them = names.get(0, "seat 0"), names.get(1, "seat 1")
    rows = []
    for r in rounds:
        view = (r.get("result") or {}).get("p0")
        if not isinstance(view, dict):
            continue
        details = []
        for key, value in view.items():
            if key in ("round", "your_points", "opponent_points"):
                continue
            if key.startswith("your_"):
                label = f"{me}: {key.removeprefix('your_').replace('_', ' ')}"
            elif key.startswith("opponent_"):
                label = f"{them}: {key.removeprefix('opponent_').replace('_', ' ')}"
            else:
                label = key.replace("_", " ")
            shown = value if isinstance(value, str | int | float) else _short(value)
            details.append(f"{label} = {shown}")
        rows.append(
            {
                "round": r.get("round"),
                "points": f"{me} {view.get('your_points')}, {them} {view.get('opponent_points')}",
                "details": details,
            }
        )
    return rows

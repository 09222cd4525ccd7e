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
    """The position after each move, as SVG (python-chess), for stepping through a chess game."""
    import chess
    import chess.svg

    board = chess.Board()
    frames: list[dict[str, Any]] = [
        {"ply": 0, "move": "start", "svg": SafeString(chess.svg.board(board, size=320))}
    ]
    for e in entries:
        action = e.get("action")
        if not isinstance(action, dict):
            continue
        uci = action.get("move") or action.get("uci")
        if not isinstance(uci, str):
            continue
        try:
            move = chess.Move.from_uci(uci)
            san = board.san(move)
            board.push(move)
        except ValueError:
            break
        frames.append(
            {
                "ply": len(frames),
                "move": san,
                # python-chess builds this SVG from the board alone: no user text inside.
                "svg": SafeString(chess.svg.board(board, size=320, lastmove=move)),
            }
        )
    return frames


def round_rows(rounds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Round results as the game reported them (poker hands, dice reveals, split/steal choices)."""
    return [
        {"round": r.get("round"), "result": json.dumps(r.get("result"), indent=1, default=str)}
        for r in rounds
    ]

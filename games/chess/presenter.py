"""Chess replays: the board after every ply (drawn by the player from a FEN), the last move, each
side's clock used, the moves in SAN, and the match as PGN."""

from __future__ import annotations

import io
from typing import Any

import chess
import chess.pgn

from games.core.presenter import Replay, ReplayInput, number, round_results, turns


def present(match: ReplayInput) -> Replay:
    """One frame per game start and per ply; the board is flipped when the viewer plays black."""
    replay = Replay()
    results = round_results(match.entries)
    clock_ms = [0.0 for _ in match.names]
    games: list[tuple[int, int, list[chess.Move]]] = []  # (round, white seat, moves)
    board: chess.Board | None = None
    current_round: Any = None
    white = 0
    for entry in turns(match.entries):
        move_text = (entry.get("action") or {}).get("move")
        seat = entry.get("seat")
        if not isinstance(move_text, str) or not isinstance(seat, int):
            continue
        if board is None or entry.get("round") != current_round:
            # A game's first move is white's: that fixes who has which colour this game.
            board, current_round, white = chess.Board(), entry.get("round"), seat
            clock_ms = [0.0 for _ in match.names]
            games.append((current_round, white, []))
            replay.add(
                current_round,
                f"game {current_round}: start",
                entry.get("seq"),
                *_position(match, board, None, white, clock_ms),
            )
        try:
            move = chess.Move.from_uci(move_text)
            san = board.san(move)
        except ValueError:
            continue
        number_label = f"{board.fullmove_number}." + ("" if board.turn else "..")
        board.push(move)
        games[-1][2].append(move)
        elapsed = entry.get("elapsed_ms")
        if isinstance(elapsed, int | float):
            clock_ms[seat] += float(elapsed)
        replay.add(
            current_round,
            f"{number_label} {san}",
            entry.get("seq"),
            *_position(match, board, move_text, white, clock_ms),
        )
        result = results.get(current_round) if isinstance(current_round, int) else None
        if result is not None and len(board.move_stack) == len(result.get("moves") or []):
            replay.frames[-1]["widgets"].append(
                {
                    "kind": "facts",
                    "items": [
                        ["game over", str(result.get("termination", "")).replace("_", " ")],
                        [match.name(0), number(result.get("your_points"))],
                        [match.name(1), number(result.get("opponent_points"))],
                    ],
                }
            )
    if games:
        replay.downloads.append(
            {
                "filename": "match.pgn",
                "mime": "application/x-chess-pgn",
                "text": _pgn(match, games, results),
            }
        )
    return replay


def _flip(match: ReplayInput, white_seat: int) -> bool:
    """Black at the bottom when the viewer owns only the black seat of this game."""
    black_seat = 1 - white_seat
    return black_seat in match.viewer_seats and white_seat not in match.viewer_seats


def _position(
    match: ReplayInput,
    board: chess.Board,
    lastmove: str | None,
    white_seat: int,
    clock_ms: list[float],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A frame's widgets: the board (flipped for a viewer who plays black) and the players."""
    return (
        _board(board, lastmove, _flip(match, white_seat)),
        _players(match, white_seat, clock_ms, board),
    )


def _board(board: chess.Board, lastmove: str | None, flip: bool) -> dict[str, Any]:
    return {"kind": "board", "fen": board.board_fen(), "lastmove": lastmove, "flip": flip}


def _players(
    match: ReplayInput, white_seat: int, clock_ms: list[float], board: chess.Board
) -> dict[str, Any]:
    # Names and clocks in one small widget: a 300-ply game repeats it 300 times.
    items = []
    for colour, seat in (("white", white_seat), ("black", 1 - white_seat)):
        to_move = (board.turn == chess.WHITE) == (colour == "white")
        mark = " ◀" if to_move and not board.is_game_over() else ""
        items.append([f"{colour}: {match.name(seat)}{mark}", f"{clock_ms[seat] / 1000:.2f} s used"])
    return {"kind": "facts", "items": items}


def _pgn(
    match: ReplayInput,
    games: list[tuple[int, int, list[chess.Move]]],
    results: dict[int, dict[str, Any]],
) -> str:
    out = io.StringIO()
    for round_no, white, moves in games:
        game = chess.pgn.Game()
        game.headers["Event"] = "Agent Arena match"
        game.headers["Round"] = str(round_no)
        game.headers["White"] = match.name(white)
        game.headers["Black"] = match.name(1 - white)
        node: chess.pgn.GameNode = game
        for move in moves:
            node = node.add_variation(move)
        result = results.get(round_no)
        if result is not None:
            white_points = (
                result.get("your_points") if white == 0 else result.get("opponent_points")
            )
            game.headers["Result"] = {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}.get(
                float(white_points) if isinstance(white_points, int | float) else -1.0, "*"
            )
        print(game, file=out, end="\n\n")
    return out.getvalue()

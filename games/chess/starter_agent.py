"""A starter agent for chess. Upload this file as it is, then make it smarter.

A match is two games with colours swapped. Each turn you get the position and the list of legal
moves and return one of them in UCI ("e2e4", "g1f3", "e7e8q" to promote, "e1g1" to castle).
Uploaded agents have only the standard library (no python-chess), so this one reads the board
from the FEN itself: it takes the most valuable piece it can, promotes, and otherwise plays a
random legal move.
"""

import random
from typing import Any

PIECE_VALUES = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9, "k": 0}


def board_from_fen(fen: str) -> dict[str, str]:
    """{square name: piece letter} from the first field of a FEN (upper case = white)."""
    board: dict[str, str] = {}
    rows = fen.split()[0].split("/")
    for rank_index, row in enumerate(rows):
        rank = 8 - rank_index
        file_index = 0
        for char in row:
            if char.isdigit():
                file_index += int(char)
            else:
                board["abcdefgh"[file_index] + str(rank)] = char
                file_index += 1
    return board


class Agent:
    """Takes the most valuable piece it can, else plays a random legal move."""

    # Which game this agent plays: required.
    GAME = "chess"

    def __init__(self) -> None:
        # A fixed seed keeps your agent reproducible: the same match plays the same way.
        self.rng = random.Random(1)

    def on_match_start(self, match_info: dict[str, Any]) -> None:
        # match_info: {"game", "opponent_name", "total_rounds" (2 games), "seat", "config", ...}
        print("Playing", match_info["total_rounds"], "games against", match_info["opponent_name"])

    def on_round_start(self, round_info: dict[str, Any]) -> None:
        # round_info: {"round": game number, "pot": 1}
        print("Game", round_info["round"], "starts")

    def on_turn(self, round_state: dict[str, Any]) -> dict[str, Any]:
        # round_state fields:
        #   "fen":         the position as FEN, e.g. after 1. e4:
        #                  "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        #   "color":       "white" or "black": the side you play this game
        #   "legal_moves": every legal move in UCI, e.g. ["a7a6", "b8c6", ...]
        #   "moves":       the moves of this game so far, in UCI
        #   "in_check":    whether your king is in check
        #   "your_score", "opponent_score": points so far (win 1, draw 0.5)
        #   "history":     finished games: {"round", "your_color", "result", "termination", ...}
        #   "error", "attempt": present when your last answer was refused (3 retries, then forfeit)
        if "error" in round_state:
            print("My last move was refused:", round_state["error"])
        board = board_from_fen(round_state["fen"])
        best_move, best_gain = None, 0
        for move in round_state["legal_moves"]:
            target = board.get(move[2:4])
            gain = PIECE_VALUES[target.lower()] if target else 0
            if len(move) == 5:  # a promotion: the fifth letter is the new piece
                gain += PIECE_VALUES[move[4]] - 1
            if gain > best_gain:
                best_move, best_gain = move, gain
        if best_move is None:
            best_move = self.rng.choice(round_state["legal_moves"])
        print(
            "move",
            len(round_state["moves"]) + 1,
            "as",
            round_state["color"],
            "->",
            best_move,
            "(wins material)" if best_gain else "",
        )
        return {"type": "move", "move": best_move}

    def on_round_end(self, round_result: dict[str, Any]) -> None:
        # round_result: {"round", "your_points", "opponent_points", "your_color", "result",
        #                "termination", "moves", "final_fen"}
        print(
            "Game", round_result["round"], round_result["result"], "by", round_result["termination"]
        )

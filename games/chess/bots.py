"""House bots for chess, from trivial to a real (if small) search.

* ``random``: a uniformly random legal move.
* ``greedy``: one ply of material: mates in one, takes the most valuable piece it can without
  putting a more valuable piece en prise, promotes.
* ``search``: alpha-beta negamax with iterative deepening, quiescence on captures, MVV-LVA and
  killer-move ordering, and a piece-square evaluation (the "simplified evaluation function"
  tables) with a mop-up term that drives a lone king to the edge so won endgames get mated.

Every bot is deterministic on an idle machine: the search stops on a node budget, so the same
match gives the same record on any machine that is not short of CPU. A house bot is the platform's
own code and must answer well inside the turn budget even on a loaded worker, so in a timed match
the search also has a deadline on the wall clock (``SearchBot.BUDGET_SHARE`` of the turn budget,
counted from the start of its ``on_turn``; ``games/core/bot_clock.py``): iterative deepening
plays the best move of the last depth it completed, so time changes the move only when it cut
a deeper search short, which a machine with CPU to spare never does. Untimed matches
(playthroughs, strength tables) have no deadline and stay deterministic everywhere.
``bench/chess_search.py`` measures its time per move, ``bench/house_bots_load.py`` every house
bot's worst call on a loaded machine.
House bots run in-process and use python-chess; uploaded agents get only the standard library.
"""

from __future__ import annotations

import random
from typing import Any

import chess

from games.core.bot_clock import MoveClock, past

PIECE_VALUES = {
    chess.PAWN: 100,
    chess.KNIGHT: 320,
    chess.BISHOP: 330,
    chess.ROOK: 500,
    chess.QUEEN: 900,
    chess.KING: 0,
}

# Piece-square tables from white's point of view, one rank a row, rank 8 first (as a board is
# printed); _by_square turns each into a white and a mirrored black table indexed by square.
# fmt: off
_PST_ROWS: dict[int, list[int]] = {
    chess.PAWN: [
          0,   0,   0,   0,   0,   0,   0,   0,
         50,  50,  50,  50,  50,  50,  50,  50,
         10,  10,  20,  30,  30,  20,  10,  10,
          5,   5,  10,  25,  25,  10,   5,   5,
          0,   0,   0,  20,  20,   0,   0,   0,
          5,  -5, -10,   0,   0, -10,  -5,   5,
          5,  10,  10, -20, -20,  10,  10,   5,
          0,   0,   0,   0,   0,   0,   0,   0,
    ],
    chess.KNIGHT: [
        -50, -40, -30, -30, -30, -30, -40, -50,
        -40, -20,   0,   0,   0,   0, -20, -40,
        -30,   0,  10,  15,  15,  10,   0, -30,
        -30,   5,  15,  20,  20,  15,   5, -30,
        -30,   0,  15,  20,  20,  15,   0, -30,
        -30,   5,  10,  15,  15,  10,   5, -30,
        -40, -20,   0,   5,   5,   0, -20, -40,
        -50, -40, -30, -30, -30, -30, -40, -50,
    ],
    chess.BISHOP: [
        -20, -10, -10, -10, -10, -10, -10, -20,
        -10,   0,   0,   0,   0,   0,   0, -10,
        -10,   0,   5,  10,  10,   5,   0, -10,
        -10,   5,   5,  10,  10,   5,   5, -10,
        -10,   0,  10,  10,  10,  10,   0, -10,
        -10,  10,  10,  10,  10,  10,  10, -10,
        -10,   5,   0,   0,   0,   0,   5, -10,
        -20, -10, -10, -10, -10, -10, -10, -20,
    ],
    chess.ROOK: [
          0,   0,   0,   0,   0,   0,   0,   0,
          5,  10,  10,  10,  10,  10,  10,   5,
         -5,   0,   0,   0,   0,   0,   0,  -5,
         -5,   0,   0,   0,   0,   0,   0,  -5,
         -5,   0,   0,   0,   0,   0,   0,  -5,
         -5,   0,   0,   0,   0,   0,   0,  -5,
         -5,   0,   0,   0,   0,   0,   0,  -5,
          0,   0,   0,   5,   5,   0,   0,   0,
    ],
    chess.QUEEN: [
        -20, -10, -10,  -5,  -5, -10, -10, -20,
        -10,   0,   0,   0,   0,   0,   0, -10,
        -10,   0,   5,   5,   5,   5,   0, -10,
         -5,   0,   5,   5,   5,   5,   0,  -5,
          0,   0,   5,   5,   5,   5,   0,  -5,
        -10,   5,   5,   5,   5,   5,   0, -10,
        -10,   0,   5,   0,   0,   0,   0, -10,
        -20, -10, -10,  -5,  -5, -10, -10, -20,
    ],
    chess.KING: [
        -30, -40, -40, -50, -50, -40, -40, -30,
        -30, -40, -40, -50, -50, -40, -40, -30,
        -30, -40, -40, -50, -50, -40, -40, -30,
        -30, -40, -40, -50, -50, -40, -40, -30,
        -20, -30, -30, -40, -40, -30, -30, -20,
        -10, -20, -20, -20, -20, -20, -20, -10,
         20,  20,   0,   0,   0,   0,  20,  20,
         20,  30,  10,   0,   0,  10,  30,  20,
    ],
}
_KING_ENDGAME_ROWS = [
    -50, -40, -30, -20, -20, -30, -40, -50,
    -30, -20, -10,   0,   0, -10, -20, -30,
    -30, -10,  20,  30,  30,  20, -10, -30,
    -30, -10,  30,  40,  40,  30, -10, -30,
    -30, -10,  30,  40,  40,  30, -10, -30,
    -30, -10,  20,  30,  30,  20, -10, -30,
    -30, -30,   0,   0,   0,   0, -30, -30,
    -50, -30, -30, -30, -30, -30, -30, -50,
]
# fmt: on


def _by_square(rows: list[int]) -> tuple[list[int], list[int]]:
    """(white table, black table) indexed by python-chess square (a1 = 0)."""
    white = [rows[(7 - chess.square_rank(s)) * 8 + chess.square_file(s)] for s in chess.SQUARES]
    black = [white[chess.square_mirror(s)] for s in chess.SQUARES]
    return white, black


_PST = {pt: _by_square(rows) for pt, rows in _PST_ROWS.items()}
_KING_ENDGAME = _by_square(_KING_ENDGAME_ROWS)

MATE_SCORE = 100_000


def board_from_state(round_state: dict[str, Any]) -> chess.Board:
    """The board with its move stack (for repetition) when the moves replay from the start."""
    board = chess.Board()
    try:
        for uci in round_state.get("moves", []):
            board.push_uci(uci)
    except ValueError:
        return chess.Board(round_state["fen"])
    if board.fen() != round_state["fen"]:
        return chess.Board(round_state["fen"])  # a game set up from another position
    return board


def evaluate(board: chess.Board) -> int:
    """Static evaluation in centipawns from the side to move's point of view."""
    pieces = board.piece_map()
    non_pawn = sum(
        PIECE_VALUES[p.piece_type] for p in pieces.values() if p.piece_type not in (chess.PAWN,)
    )
    endgame = non_pawn <= 2 * (PIECE_VALUES[chess.ROOK] + PIECE_VALUES[chess.KNIGHT])
    score = 0
    material = [0, 0]
    for square, piece in pieces.items():
        colour = piece.color
        table = (
            _KING_ENDGAME if endgame and piece.piece_type == chess.KING else _PST[piece.piece_type]
        )
        value = PIECE_VALUES[piece.piece_type] + table[0 if colour else 1][square]
        material[colour] += PIECE_VALUES[piece.piece_type]
        score += value if colour == chess.WHITE else -value
    if endgame:
        score += _mop_up(board, material)
    return score if board.turn == chess.WHITE else -score


def _mop_up(board: chess.Board, material: list[int]) -> int:
    """A bonus for the side well ahead: the lost king near an edge, the kings close together."""
    lead = material[chess.WHITE] - material[chess.BLACK]
    if abs(lead) < 400:
        return 0
    strong = chess.WHITE if lead > 0 else chess.BLACK
    own_king = board.king(strong)
    lost_king = board.king(not strong)
    if own_king is None or lost_king is None:
        return 0
    file, rank = chess.square_file(lost_king), chess.square_rank(lost_king)
    from_centre = max(3 - file, file - 4) + max(3 - rank, rank - 4)
    closeness = 14 - chess.square_distance(own_king, lost_king) * 2
    bonus = 10 * from_centre + 4 * closeness
    return bonus if strong == chess.WHITE else -bonus


class _Search:
    """One move's alpha-beta search with a node budget (deterministic) and, when given, a
    deadline on ``time.perf_counter()`` (the wall clock the referee charges)."""

    def __init__(
        self,
        board: chess.Board,
        node_budget: int,
        max_depth: int,
        deadline: float | None = None,
    ) -> None:
        self.board = board
        self.node_budget = node_budget
        self.max_depth = max_depth
        self.deadline = deadline
        self.nodes = 0
        self.killers: dict[int, list[chess.Move]] = {}
        #: The depths completed and whether the deadline cut the search (for tests and benches).
        self.depth_completed = 0
        self.cut_by_clock = False

    class OutOfNodes(Exception):
        """The node budget (or the deadline) ran out inside an iteration."""

    def best_move(self) -> chess.Move:
        root = self.board
        root_moves = self._ordered(list(root.legal_moves), 0)
        best = root_moves[0]
        for depth in range(1, self.max_depth + 1):
            # An exhausted budget unwinds without popping: each iteration gets its own copy.
            self.board = root.copy()
            try:
                best = self._root(root_moves, depth)
            except self.OutOfNodes:
                break  # an unfinished depth is dropped: the last complete one decides
            self.depth_completed = depth
            root_moves.remove(best)
            root_moves.insert(0, best)  # search the last best first next time
        return best

    def _root(self, moves: list[chess.Move], depth: int) -> chess.Move:
        board = self.board
        alpha, beta = -MATE_SCORE - 1, MATE_SCORE + 1
        best = moves[0]
        for move in moves:
            board.push(move)
            if board.is_checkmate():
                score = MATE_SCORE
            elif board.is_repetition(2) or board.is_fifty_moves():
                score = 0  # heading for a draw: only good when losing
            else:
                score = -self._negamax(depth - 1, -beta, -alpha, 1)
            board.pop()
            if score > alpha:
                alpha, best = score, move
        return best

    def _visit(self) -> None:
        """Count one node searched; past the node budget or the deadline the search stops
        (``OutOfNodes``). Reading the clock costs far less than a node (a push and a pop)."""
        self.nodes += 1
        if self.nodes > self.node_budget:
            raise self.OutOfNodes
        if past(self.deadline):
            self.cut_by_clock = True
            raise self.OutOfNodes

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        self._visit()
        board = self.board
        if depth <= 0:
            return self._quiesce(alpha, beta, ply, 4)
        moves = list(board.legal_moves)
        if not moves:
            return -MATE_SCORE + ply if board.is_check() else 0
        if board.is_insufficient_material():
            return 0
        for move in self._ordered(moves, ply):
            board.push(move)
            score = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
            board.pop()
            if score >= beta:
                if not board.is_capture(move):
                    killers = self.killers.setdefault(ply, [])
                    if move not in killers:
                        killers.insert(0, move)
                        del killers[2:]
                return beta
            if score > alpha:
                alpha = score
        return alpha

    def _quiesce(self, alpha: int, beta: int, ply: int, depth_left: int) -> int:
        self._visit()
        board = self.board
        stand_pat = evaluate(board)
        if stand_pat >= beta:
            return beta
        alpha = max(alpha, stand_pat)
        if depth_left == 0:
            return alpha
        captures = sorted(board.generate_legal_captures(), key=self._mvv_lva, reverse=True)
        for move in captures:
            board.push(move)
            score = -self._quiesce(-beta, -alpha, ply + 1, depth_left - 1)
            board.pop()
            if score >= beta:
                return beta
            alpha = max(alpha, score)
        return alpha

    def _mvv_lva(self, move: chess.Move) -> int:
        board = self.board
        if board.is_en_passant(move):
            victim = chess.PAWN
        else:
            target = board.piece_type_at(move.to_square)
            victim = target if target is not None else 0
        attacker = board.piece_type_at(move.from_square) or 0
        promotion = PIECE_VALUES[move.promotion] if move.promotion else 0
        return 10 * (PIECE_VALUES.get(victim, 0) + promotion) - PIECE_VALUES.get(attacker, 0) // 10

    def _ordered(self, moves: list[chess.Move], ply: int) -> list[chess.Move]:
        board = self.board
        killers = self.killers.get(ply, [])

        def key(move: chess.Move) -> int:
            if board.is_capture(move) or move.promotion:
                return 100_000 + self._mvv_lva(move)
            if move in killers:
                return 50_000 - killers.index(move)
            return 0

        return sorted(moves, key=key, reverse=True)


class _SeededBot:
    """A bot whose randomness is seeded by the match (``match_seed``), so matches differ but each
    one replays identically."""

    GAME = "chess"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def on_match_start(self, match_info: dict[str, Any]) -> None:
        """Seed from the match and the seat."""
        self.rng = random.Random(f"{match_info.get('match_seed', 0)}/{match_info.get('seat', 0)}")


class RandomBot(_SeededBot):
    """Plays a uniformly random legal move."""

    def on_turn(self, round_state: dict[str, Any]) -> dict[str, Any]:
        """A random move from ``legal_moves``."""
        return {"type": "move", "move": self.rng.choice(round_state["legal_moves"])}


class GreedyBot(_SeededBot):
    """One ply of material: mate if it can, else the best capture that does not hang a piece."""

    def on_turn(self, round_state: dict[str, Any]) -> dict[str, Any]:
        """The move with the best immediate material balance; ties broken at random."""
        board = board_from_state(round_state)
        best_score, best_moves = -MATE_SCORE, []
        for move in sorted(board.legal_moves, key=lambda m: m.uci()):
            score = self._score(board, move)
            if score > best_score:
                best_score, best_moves = score, [move]
            elif score == best_score:
                best_moves.append(move)
        return {"type": "move", "move": self.rng.choice(best_moves).uci()}

    @staticmethod
    def _score(board: chess.Board, move: chess.Move) -> int:
        mover = board.piece_type_at(move.from_square) or chess.PAWN
        gain = 0
        if board.is_en_passant(move):
            gain = PIECE_VALUES[chess.PAWN]
        elif board.is_capture(move):
            gain = PIECE_VALUES[board.piece_type_at(move.to_square) or chess.PAWN]
        if move.promotion:
            gain += PIECE_VALUES[move.promotion] - PIECE_VALUES[chess.PAWN]
            mover = move.promotion
        board.push(move)
        try:
            if board.is_checkmate():
                return MATE_SCORE
            if board.is_attacked_by(board.turn, move.to_square):
                defended = board.is_attacked_by(not board.turn, move.to_square)
                gain -= PIECE_VALUES[mover] if not defended else max(0, PIECE_VALUES[mover] - gain)
        finally:
            board.pop()
        return gain


class SearchBot:
    """Alpha-beta with quiescence and a piece-square evaluation, on a fixed node budget and, in a
    timed match, a deadline on the wall clock."""

    GAME = "chess"
    #: Nodes per move (searched plus quiescence); chosen so a move takes well under 1 s on an idle
    #: machine, where it decides (about 0.15 s a move, 0.3 s at most).
    NODE_BUDGET = 4500
    MAX_DEPTH = 4
    #: The share of the turn budget a move may take on the wall clock in a timed match (0.5 s of
    #: the default 2 s): on a worker whose cores are busy the search stops there, at the last
    #: depth it completed, leaving the rest of the budget for a scheduler that is slow to hand
    #: the CPU back. The deadline counts from the start of ``on_turn``, the board replay included.
    BUDGET_SHARE = 0.25

    def __init__(self) -> None:
        self.clock = MoveClock(self.BUDGET_SHARE)
        #: The last move's search (depth reached, whether the clock cut it), for benches.
        self.last_search: _Search | None = None

    def on_match_start(self, match_info: dict[str, Any]) -> None:
        """Take the deadline from the match's clock: none in an untimed match."""
        self.clock.set_match(match_info)

    def on_turn(self, round_state: dict[str, Any]) -> dict[str, Any]:
        """The best move the search finds within its node budget and its deadline."""
        deadline = self.clock.deadline()
        board = board_from_state(round_state)
        search = _Search(board, self.NODE_BUDGET, self.MAX_DEPTH, deadline)
        move = search.best_move()
        self.last_search = search
        return {"type": "move", "move": move.uci()}


BOTS: dict[str, type] = {"random": RandomBot, "greedy": GreedyBot, "search": SearchBot}

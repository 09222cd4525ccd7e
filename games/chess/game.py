"""Chess as ``rules.md`` states it: FIDE legality by python-chess, strict automatic ending.

A match is ``config.games`` games (rounds, default 2) with colours swapped each game; seat 0 has
white in game 1. A game ends at once, checked in this order after every move:

1. checkmate (so a mate delivered on the hundredth quiet half-move is still a win);
2. stalemate;
3. insufficient material (python-chess's dead positions: KvK, KBvK, KNvK, same-coloured bishops);
4. the strict fifty-move rule, ``is_fifty_moves()``: 100 half-moves without capture or pawn move;
5. threefold repetition, ``is_repetition(3)``: the position (side to move, castling and en-passant
   rights included) stands on the board for the third time;
6. the safety cap of ``config.max_plies`` half-moves (1000), adjudicated a draw.

The claim variants (``can_claim_*``, ``outcome(claim_draw=True)``) are not used on purpose: they
look one move ahead and would end a game a ply before the position that triggers the rule.
"""

from __future__ import annotations

from typing import Any

import chess

from games.chess.config import ChessConfig
from games.core import Action, Game, IllegalActionError
from games.core.figures import Playthrough

#: Points per game for a win, a draw and a loss.
WIN_POINTS, DRAW_POINTS, LOSS_POINTS = 1.0, 0.5, 0.0

COLOR_NAMES = {chess.WHITE: "white", chess.BLACK: "black"}


def describe_board(board: chess.Board) -> str:
    """The FEN and an ASCII board (white at the bottom), as an illegal-move error shows them."""
    return f"FEN: {board.fen()}\n{board}"


class ChessGame(Game):
    """Two players, ``config.games`` games of chess with colours swapped."""

    game_type = "chess"
    #: Short matches where a full one would make a file of megabytes.
    playthroughs = (
        Playthrough(("greedy", "random"), 1, {"games": 1}),
        Playthrough(("random", "greedy"), 2, {"games": 1}),
    )
    order = 70
    title = "Chess"
    version = 1
    config_class = ChessConfig
    config: ChessConfig
    #: Chess has no secrets: a seat's colour is as public as the board.
    open_private_fields = frozenset({"player_id", "history", "color"})

    def reset(self, seed: int) -> None:
        """Start game 1. Chess deals nothing; the seed is passed on to agents in match_info."""
        self.rng.seed(seed)
        self.seed = seed
        self.game_number = 1
        self.scores = dict.fromkeys(self.players, 0.0)
        self.finished: list[dict[str, Any]] = []  # one entry per finished game, seat-neutral
        self._over = False
        self._new_board()

    def _new_board(self) -> None:
        self.board = chess.Board(self.config.start_fen)
        self.moves: list[str] = []

    # --- who plays what -------------------------------------------------------------------------

    def white_player(self, game_number: int | None = None) -> str:
        """The player with white in ``game_number`` (default: the current game)."""
        number = self.game_number if game_number is None else game_number
        return self.players[(number - 1) % 2]

    def color_of(self, player_id: str) -> chess.Color:
        """The colour ``player_id`` plays in the current game."""
        return chess.WHITE if player_id == self.white_player() else chess.BLACK

    @property
    def total_rounds(self) -> int:
        """``config.games``."""
        return self.config.games

    def get_round(self) -> int:
        """The current game, 1-based (the last one once over)."""
        return min(self.game_number, self.config.games)

    def get_current_player(self) -> str:
        """The player whose colour is to move; ``""`` when the match is over."""
        if self._over:
            return ""
        white = self.white_player()
        return white if self.board.turn == chess.WHITE else self.opponent_of(white)

    # --- views --------------------------------------------------------------------------------

    def get_public_state(self) -> dict[str, Any]:
        """Everything on the board is public: FEN, moves, colours, check, finished games."""
        white = self.white_player()
        return {
            "phase": "over" if self._over else "play",
            "round": self.get_round(),
            "turn": len(self.moves) + 1,
            "pot": WIN_POINTS,
            "scores": dict(self.scores),
            "messages": [],
            "fen": self.board.fen(),
            "moves": list(self.moves),
            "in_check": self.board.is_check(),
            "white": white,
            "black": self.opponent_of(white),
            "games": [dict(g) for g in self.finished],
        }

    def get_private_state(self, player_id: str) -> dict[str, Any]:
        """Chess has no secrets: the seat's colour and its history of finished games."""
        return {
            "player_id": player_id,
            "color": COLOR_NAMES[self.color_of(player_id)],
            "history": [self._game_entry(g, player_id) for g in self.finished],
        }

    def _game_entry(self, game: dict[str, Any], player_id: str) -> dict[str, Any]:
        opponent = self.opponent_of(player_id)
        points = game["points"]
        mine = points[player_id]
        return {
            "round": game["round"],
            "your_color": "white" if game["white"] == player_id else "black",
            "result": "win" if mine == WIN_POINTS else "draw" if mine == DRAW_POINTS else "loss",
            "termination": game["termination"],
            "your_points": mine,
            "opponent_points": points[opponent],
            "moves": list(game["moves"]),
            "final_fen": game["final_fen"],
        }

    # --- actions ------------------------------------------------------------------------------

    def get_available_actions(self) -> list[Action]:
        """One ``move`` per legal move, in UCI, sorted; empty once the match is over."""
        if self._over:
            return []
        return [
            {"action_type": "move", "move": uci}
            for uci in sorted(m.uci() for m in self.board.legal_moves)
        ]

    def legal_move(self, action: Action) -> chess.Move:
        """The legal move ``action`` names; ``IllegalActionError`` with the rule and the board."""
        if action.get("action_type") != "move":
            raise IllegalActionError(
                f"the only action in chess is move, got {action.get('action_type')!r}; "
                'send {"type": "move", "move": "e2e4"}'
            )
        text = action.get("move")
        if not isinstance(text, str):
            raise IllegalActionError(
                f'"move" must be a UCI string like "e2e4", got {text!r}\n'
                + describe_board(self.board)
            )
        uci = text.strip().lower()
        try:
            move = chess.Move.from_uci(uci)
        except chess.InvalidMoveError:
            move = None
        if move is not None and move in self.board.legal_moves:
            return move
        raise IllegalActionError(
            f"{text!r} is not a legal move: {self._why_illegal(text, move)}\n"
            + describe_board(self.board)
        )

    def _why_illegal(self, text: str, move: chess.Move | None) -> str:
        board = self.board
        side = COLOR_NAMES[board.turn]
        if move is None:
            try:
                san_move = board.parse_san(text.strip())
            except ValueError:
                return (
                    "it is not UCI (from-square, to-square, optional promotion piece, e.g. "
                    '"e2e4", "g1f3", "e7e8q")'
                )
            return f"moves are written in UCI, not SAN: write {san_move.uci()!r}"
        piece = board.piece_at(move.from_square)
        origin = chess.square_name(move.from_square)
        if move.from_square == move.to_square:
            return "a move must go to a different square"
        if piece is None:
            return f"there is no piece on {origin}"
        if piece.color != board.turn:
            return f"the piece on {origin} is {COLOR_NAMES[piece.color]}'s and {side} is to move"
        if move.promotion is None and piece.piece_type == chess.PAWN:
            promoting = chess.Move(move.from_square, move.to_square, promotion=chess.QUEEN)
            if promoting in board.legal_moves:
                return f"a pawn reaching the last rank must promote: add q, r, b or n ({text}q)"
        if board.is_pseudo_legal(move):
            if board.is_castling(move):
                return "castling is not allowed out of, through or into check"
            return f"it would leave the {side} king in check"
        name = chess.piece_name(piece.piece_type)
        target = chess.square_name(move.to_square)
        if board.is_check():
            return f"the {side} king is in check and the {name} on {origin} cannot go to {target}"
        return f"the {name} on {origin} cannot move to {target}"

    def step(self, action: Action) -> tuple[dict[str, Any], bool]:
        """Play one move; when it ends the game, score it and set up the next one."""
        player = self.get_current_player()
        if not player:
            raise IllegalActionError("the match is over")
        move = self.legal_move(action)
        self.board.push(move)
        self.moves.append(move.uci())
        info: dict[str, Any] = {
            "player": player,
            "action": {"action_type": "move", "move": move.uci()},
        }
        termination = self.termination()
        if termination is not None:
            info["round_result"] = self._finish_game(*termination)
        return info, self._over

    def termination(self) -> tuple[str, chess.Color | None] | None:
        """How the current game ended and the winning colour, or ``None`` while it goes on."""
        board = self.board
        if board.is_checkmate():
            return "checkmate", not board.turn
        if board.is_stalemate():
            return "stalemate", None
        if board.is_insufficient_material():
            return "insufficient material", None
        if board.is_fifty_moves():
            return "fifty-move rule", None
        if board.is_repetition(3):
            return "threefold repetition", None
        if len(self.moves) >= self.config.max_plies:
            return f"{self.config.max_plies}-ply cap", None
        return None

    def _finish_game(self, termination: str, winner: chess.Color | None) -> dict[str, Any]:
        white = self.white_player()
        black = self.opponent_of(white)
        if winner is None:
            points = {white: DRAW_POINTS, black: DRAW_POINTS}
        elif winner == chess.WHITE:
            points = {white: WIN_POINTS, black: LOSS_POINTS}
        else:
            points = {white: LOSS_POINTS, black: WIN_POINTS}
        for p in self.players:
            self.scores[p] += points[p]
        game = {
            "round": self.game_number,
            "white": white,
            "black": black,
            "termination": termination,
            "points": points,
            "moves": list(self.moves),
            "final_fen": self.board.fen(),
        }
        self.finished.append(game)
        result = {p: self._game_entry(game, p) for p in self.players}
        if self.game_number >= self.config.games:
            self._over = True
        else:
            self.game_number += 1
            self._new_board()
        return result

    def get_match_info(self, player_id: str) -> dict[str, Any]:
        """The match seed: chess deals nothing, so a reproducible agent (a house bot) can vary
        its play between matches only by seeding its own randomness with it."""
        return {"match_seed": self.seed}

    def get_scores(self) -> dict[str, float]:
        """Points so far: 1 a win, ½ a draw."""
        return dict(self.scores)

    def get_match_stats(self) -> dict[str, Any]:
        """How each game ended and its length in half-moves."""
        return {
            "games": [
                {"white": g["white"], "termination": g["termination"], "plies": len(g["moves"])}
                for g in self.finished
            ]
        }

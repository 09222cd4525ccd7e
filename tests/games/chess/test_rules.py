"""Chess rules as rules.md states them: termination, scoring, colours, illegal moves."""

from __future__ import annotations

from typing import Any

import chess
import pytest

from games.chess import ChessActionParser, ChessConfig, ChessGame, ChessStateAdapter
from games.core import ActionParseError, IllegalActionError
from tests.games.helpers import house_match, untimed_match


def new_game(fen: str | None = None, **config: Any) -> ChessGame:
    if fen is not None:
        config["start_fen"] = fen
    return ChessGame(["p0", "p1"], ChessConfig(**config), seed=0)


def play(game: ChessGame, *moves: str) -> dict[str, Any]:
    """Play ``moves``; return the info of the last one."""
    info: dict[str, Any] = {}
    for uci in moves:
        info, _ = game.step({"action_type": "move", "move": uci})
    return info


# --- the fifty-move rule ------------------------------------------------------------------------

# White K+R v K, 98 quiet half-moves already played.
FIFTY_FEN = "8/8/8/8/8/2k5/8/K6R w - - 98 60"


def test_fifty_move_draw_at_the_hundredth_half_move_not_before() -> None:
    game = new_game(FIFTY_FEN)
    info = play(game, "h1h2")  # the 99th quiet half-move
    assert "round_result" not in info
    assert game.board.halfmove_clock == 99
    # A claim-based rule would already end it here (a move reaching 100 exists): not ours.
    assert game.board.can_claim_fifty_moves()
    assert game.get_round() == 1 and game.get_current_player() == "p1"
    info = play(game, "c3c4")  # the 100th
    result = info["round_result"]
    assert result["p0"]["termination"] == "fifty-move rule"
    assert result["p0"]["your_points"] == result["p1"]["your_points"] == 0.5
    assert game.get_round() == 2  # game 2 started from the start position again


def test_checkmate_on_the_hundredth_half_move_counts_as_checkmate() -> None:
    game = new_game("7k/6pp/8/8/8/8/8/R5K1 w - - 99 80")
    info = play(game, "a1a8")
    assert game.finished[0]["termination"] == "checkmate"
    assert info["round_result"]["p0"]["result"] == "win"
    assert info["round_result"]["p1"]["result"] == "loss"
    assert game.get_scores() == {"p0": 1.0, "p1": 0.0}


def test_a_capture_resets_the_fifty_move_count() -> None:
    game = new_game("8/8/8/8/8/2k5/3p4/K6R w - - 97 60")
    info = play(game, "h1h2", "c3d3", "h2d2")  # the 100th half-move takes a pawn: count restarts
    assert "round_result" not in info
    assert game.board.halfmove_clock == 0


# --- threefold repetition -----------------------------------------------------------------------

SHUFFLE = ("g1f3", "g8f6", "f3g1", "f6g8")


def test_threefold_repetition_ends_the_game_when_the_position_occurs_the_third_time() -> None:
    game = new_game()
    play(game, *SHUFFLE, *SHUFFLE[:3])  # the start position has stood twice; 7 plies played
    assert game.get_round() == 1 and not game.finished
    assert game.board.can_claim_threefold_repetition()  # a claim would end it a ply early
    info = play(game, SHUFFLE[3])  # the start position, with white to move, a third time
    assert info["round_result"]["p0"]["termination"] == "threefold repetition"
    assert len(game.finished[0]["moves"]) == 8


def test_same_squares_with_other_castling_rights_is_not_a_repetition() -> None:
    game = new_game("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    rook_trip = ("h1g1", "h8g8", "g1h1", "g8h8")  # costs both king-side castling rights
    play(game, *rook_trip, *rook_trip)
    # The starting squares have stood three times, but the first time with every right: no draw.
    assert game.board.board_fen() == "r3k2r/8/8/8/8/8/8/R3K2R"
    assert not game.finished
    play(game, "h1g1", "h8g8")  # this position, with rights Qq, now stands for the third time
    assert game.finished[0]["termination"] == "threefold repetition"
    assert len(game.finished[0]["moves"]) == 10


# --- dead positions, stalemate, the ply cap -----------------------------------------------------


def test_king_and_bishop_against_king_is_a_dead_position() -> None:
    game = new_game("7k/8/8/8/8/8/3n4/K1B5 w - - 0 1")
    info = play(game, "c1d2")  # the bishop takes the last black piece
    assert info["round_result"]["p0"]["termination"] == "insufficient material"
    assert game.get_scores() == {"p0": 0.5, "p1": 0.5}


# A fully blocked pawn wall: no pawn can move or capture and neither king can cross it, so no
# sequence of legal moves mates (a dead position), yet there is mating material on the board.
BLOCKED_FEN = "4k3/8/8/p1p1p1p1/PpPpPpPp/1P1P1P1P/8/4K3 w - - 0 1"


def test_a_blocked_dead_position_runs_on_to_a_draw_rule_as_the_rules_page_says() -> None:
    game = new_game(BLOCKED_FEN, games=1)
    assert not game.board.is_insufficient_material()  # not detected as dead ...
    mover = {game.board.piece_type_at(m.from_square) for m in game.board.legal_moves}
    assert mover == {chess.KING}  # ... although only the kings can move
    info: dict[str, Any] = {}
    plies = 0
    while "round_result" not in info:
        info = play(game, min(m.uci() for m in game.board.legal_moves))
        plies += 1
    # It ends as a draw all the same, by repetition or the fifty-move rule, not at once.
    assert plies > 1
    result = info["round_result"]["p0"]
    assert result["termination"] in ("threefold repetition", "fifty-move rule")
    assert result["your_points"] == result["opponent_points"] == 0.5


def test_stalemate_is_a_draw() -> None:
    game = new_game("7k/8/4Q3/8/8/8/8/K7 w - - 0 1")
    info = play(game, "e6g6")
    assert info["round_result"]["p1"]["termination"] == "stalemate"


def test_the_ply_cap_adjudicates_a_draw() -> None:
    game = new_game(max_plies=6)
    info = play(game, *SHUFFLE[:2], "b1c3", "b8c6", "c3b1", "c6b8")
    assert info["round_result"]["p0"]["termination"] == "6-ply cap"


# --- the match ----------------------------------------------------------------------------------

FOOLS_MATE = ("f2f3", "e7e5", "g2g4", "d8h4")


def test_two_games_with_colours_swapped_and_scores_totalled() -> None:
    game = new_game()
    assert game.get_current_player() == "p0"
    assert game.get_private_state("p0")["color"] == "white"
    play(game, *FOOLS_MATE)  # black (p1) mates in game 1
    assert game.get_round() == 2
    assert game.get_current_player() == "p1"  # p1 has white in game 2
    assert game.get_private_state("p0")["color"] == "black"
    _, over = game.step({"action_type": "move", "move": "f2f3"})
    assert not over
    play(game, "e7e5", "g2g4")
    info, over = game.step({"action_type": "move", "move": "d8h4"})  # p0 mates as black
    assert over and game.is_over()
    assert game.get_scores() == {"p0": 1.0, "p1": 1.0}
    assert game.get_winner() is None
    assert info["round_result"]["p0"]["your_color"] == "black"
    history = game.get_private_state("p1")["history"]
    assert [h["result"] for h in history] == ["win", "loss"]
    assert game.get_available_actions() == []


# --- illegal moves ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        ("e2e5", "the pawn on e2 cannot move to e5"),
        ("e7e5", "the piece on e7 is black's and white is to move"),
        ("e3e4", "there is no piece on e3"),
        ("Nf3", "write 'g1f3'"),
        ("hello", "it is not UCI"),
        (42, '"move" must be a UCI string'),
    ],
)
def test_an_illegal_move_is_refused_with_the_reason_and_the_board(move: Any, reason: str) -> None:
    game = new_game()
    with pytest.raises(IllegalActionError) as caught:
        game.step({"action_type": "move", "move": move})
    message = str(caught.value)
    assert reason in message
    assert f"FEN: {chess.STARTING_FEN}" in message
    assert "r n b q k b n r" in message  # the ASCII board
    assert game.moves == []  # nothing was played


def test_moving_into_check_and_missing_promotion_are_explained() -> None:
    pinned = new_game("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1")
    with pytest.raises(IllegalActionError, match="leave the white king in check"):
        pinned.step({"action_type": "move", "move": "e1d2"})  # d2 is on the rook's rank
    promo = new_game("8/4P3/8/8/8/8/k7/4K3 w - - 0 1")
    with pytest.raises(IllegalActionError, match="must promote"):
        promo.step({"action_type": "move", "move": "e7e8"})
    play(promo, "e7e8q")
    assert promo.board.piece_at(chess.E8) == chess.Piece(chess.QUEEN, chess.WHITE)


def test_parser_accepts_uci_alias_and_canonicalises_spelling() -> None:
    game = new_game()
    parser = ChessActionParser(fallback_to_random=False)
    valid = game.get_available_actions()
    assert parser.parse({"type": "move", "uci": " E2E4 "}, valid) == {
        "action_type": "move",
        "move": "e2e4",
    }
    assert parser.parse('I play ```json\n{"type": "move", "move": "g1f3"}\n```', valid) == {
        "action_type": "move",
        "move": "g1f3",
    }
    with pytest.raises(ActionParseError, match="legal now: move"):
        parser.parse({"type": "resign"}, valid)


def test_round_state_has_the_fields_of_games_md() -> None:
    game = new_game()
    play(game, "e2e4")
    adapter = ChessStateAdapter()
    state = adapter.to_round_state(
        game.get_public_state(), game.get_private_state("p1"), "p1", game.get_available_actions()
    )
    assert state["color"] == "black"
    assert state["fen"] == game.board.fen()
    assert state["moves"] == ["e2e4"]
    assert state["in_check"] is False
    assert "e7e5" in state["legal_moves"] and len(state["legal_moves"]) == 20
    assert state["turn"] == 2 and state["round"] == 1
    assert {"type": "move", "move": "e7e5"} in state["available_actions"]
    prompt = adapter.state_to_prompt(
        game.get_public_state(), game.get_private_state("p1"), game.get_available_actions(), []
    )
    assert game.board.fen() in prompt and "Side to move: Black" in prompt and "e7e5" in prompt


def test_bad_start_positions_are_refused_by_the_config() -> None:
    with pytest.raises(ValueError, match="not a valid FEN"):
        ChessConfig(start_fen="not a fen")
    with pytest.raises(ValueError, match="already over"):
        ChessConfig(start_fen="7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")  # black is stalemated


# --- through the referee ------------------------------------------------------------------------


class AlwaysIllegal:
    GAME = "chess"

    def __init__(self) -> None:
        self.errors: list[str] = []

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        if "error" in state:
            self.errors.append(state["error"])
        return {"type": "move", "move": "e2e5"}


class FirstLegal:
    GAME = "chess"

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"type": "move", "move": state["legal_moves"][0]}


def test_the_fourth_illegal_move_forfeits_the_match() -> None:
    record = untimed_match("chess", (AlwaysIllegal, "bad"), (FirstLegal, "ok"), seed=3)
    bad, ok = record.seats
    assert (str(bad.outcome), str(bad.reason)) == ("loss", "illegal")
    assert str(ok.outcome) == "win"
    assert "the last of the 4:" in bad.detail and "e2e5" in bad.detail
    attempts = [e for e in record.log if e.get("method") == "on_turn" and e["seat"] == 0]
    assert [e["attempt"] for e in attempts] == [0, 1, 2, 3]
    assert "FEN:" in attempts[1]["payload"]["error"]


def test_house_bots_finish_a_match() -> None:
    record = house_match("chess", "greedy", "random")
    assert record.platform_error is None
    assert record.rounds_played == 2
    assert sum(s.score for s in record.seats) == 2.0

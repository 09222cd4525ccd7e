"""Perft through the game's own legal-action list, against the published counts.

The counts are the standard ones (chessprogramming.org, "Perft Results"): the start position and
"Kiwipete" (position 2). Moves are taken from ``get_available_actions()``, the list agents see,
so a missing or extra legal move there changes a count.
"""

from __future__ import annotations

import pytest

from games.chess import ChessConfig, ChessGame

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def perft(game: ChessGame, depth: int) -> int:
    """Leaf count at ``depth``, expanding every action the game lists."""
    actions = game.get_available_actions()
    if depth == 1:
        return len(actions)
    total = 0
    for action in actions:
        game.board.push_uci(action["move"])
        total += perft(game, depth - 1)
        game.board.pop()
    return total


def game_at(fen: str | None = None) -> ChessGame:
    config = ChessConfig() if fen is None else ChessConfig(start_fen=fen)
    return ChessGame(["p0", "p1"], config, seed=0)


@pytest.mark.parametrize(("depth", "expected"), [(1, 20), (2, 400), (3, 8_902), (4, 197_281)])
def test_start_position(depth: int, expected: int) -> None:
    assert perft(game_at(), depth) == expected


@pytest.mark.parametrize(("depth", "expected"), [(1, 48), (2, 2_039), (3, 97_862)])
def test_kiwipete(depth: int, expected: int) -> None:
    assert perft(game_at(KIWIPETE), depth) == expected


def test_actions_are_uci_moves_agents_can_send() -> None:
    actions = game_at().get_available_actions()
    assert {"action_type": "move", "move": "e2e4"} in actions
    assert all(set(a) == {"action_type", "move"} for a in actions)

"""A published hand replayed through the engine: Tom Dwan v Phil Ivey, the first televised
million-dollar pot (Full Tilt Million Dollar Cash Game, season 4 episode 12, 2009).

Source: PokerKit's documentation, "A Sample No-Limit Texas Hold'em Hand"
(github.com/uoftcprg/pokerkit, docs/examples.rst; also data/dwan-ivey-2009.phh), video
https://youtu.be/GnxFohpljqM. Published: antes 500, blinds 1,000/2,000; Ivey (small blind)
1,125,600, Antonius (big blind) 2,000,000, Dwan (button) 553,500. Ivey Ac 2d, Dwan 7h 6h.
Dwan raises to 7,000, Ivey re-raises to 23,000, Antonius folds, Dwan calls. Flop Jc 3d 5c: Ivey
bets 35,000, Dwan calls. Turn 4h: Ivey bets 90,000, Dwan raises to 232,600, Ivey moves in
(1,067,100), Dwan calls all-in for 262,400 more. River Jh. Final stacks: Ivey 572,100, Antonius
1,997,500, Dwan 1,109,500: Dwan's 7-high straight beats Ivey's wheel.

How it is made heads-up, exactly: Antonius folded before acting on any chip of his own, so he is
removed together with every ante and his big blind (dead money: 3 x 500 + 2,000 = 3,500). Every
amount is divided by 20, which turns the 1,000/2,000 blinds into the arena's 50/100. Dwan, on the
button, is our button: he acts first before the flop and last after it, exactly as in the hand;
Ivey is our big blind, first to act after the flop, as he was. The effective stack is Dwan's
553,500 less his 500 ante = 553,000 / 20 = 27,650 for both players (Ivey's deeper stack was never
in play). The published result without the dead money: Ivey lost 553,500 - 500 (ante) = 553,000,
which Dwan won: 27,650 at this scale.
"""

from __future__ import annotations

from typing import Any

from treys import Card, Evaluator

from games.poker import PokerConfig, PokerGame
from games.poker.game import Deal

SCALE = 20
DWAN, IVEY = "dwan", "ivey"


class DwanIveyGame(PokerGame):
    """The engine, dealing the published cards in hand 1."""

    def deal(self, hand_number: int) -> Deal:
        """Dwan (button) 7h 6h, Ivey (big blind) Ac 2d, board Jc 3d 5c 4h Jh."""
        return Deal(("7h", "6h"), ("Ac", "2d"), ("Jc", "3d", "5c", "4h", "Jh"))


def scaled(chips: int) -> int:
    assert chips % SCALE == 0
    return chips // SCALE


def test_dwan_ivey_2009_replays_to_its_published_result() -> None:
    game = DwanIveyGame(
        [DWAN, IVEY], PokerConfig(hands=1, starting_stack=scaled(553_500 - 500)), seed=0
    )
    assert game.button == DWAN
    script: list[tuple[str, str, dict[str, Any]]] = [
        ("preflop", DWAN, {"action_type": "raise", "amount": scaled(7_000)}),
        ("preflop", IVEY, {"action_type": "raise", "amount": scaled(23_000)}),
        ("preflop", DWAN, {"action_type": "call"}),
        ("flop", IVEY, {"action_type": "raise", "amount": scaled(35_000)}),
        ("flop", DWAN, {"action_type": "call"}),
        ("turn", IVEY, {"action_type": "raise", "amount": scaled(90_000)}),
        ("turn", DWAN, {"action_type": "raise", "amount": scaled(232_600)}),
        ("turn", IVEY, {"action_type": "all_in"}),  # 1,067,100: more than Dwan can call
        ("turn", DWAN, {"action_type": "call"}),
    ]
    info: dict[str, Any] = {}
    for street, player, action in script:
        assert (game.street, game.get_current_player()) == (street, player), action
        info, _ = game.step(action)
    # Dwan's call was all-in for exactly the published 262,400 more.
    assert game.finished[0]["actions"][-1] == {
        "player": DWAN,
        "street": "turn",
        "type": "call",
        "amount": scaled(262_400),
    }
    result = info["round_result"]
    assert result[DWAN]["board"] == ["Jc", "3d", "5c", "4h", "Jh"]
    assert result[DWAN]["your_hand"] == result[IVEY]["your_hand"] == "Straight"
    assert result[DWAN]["result"] == "win"
    assert result[DWAN]["your_points"] == scaled(553_000)
    assert result[IVEY]["your_points"] == -scaled(1_125_600 - 572_100 - 500)
    assert result[DWAN]["pot"] == 2 * scaled(553_000)
    # treys agrees directly: the 7-high straight beats the five-high one.
    board = [Card.new(c) for c in ("Jc", "3d", "5c", "4h", "Jh")]
    evaluator = Evaluator()
    dwan = evaluator.evaluate(board, [Card.new("7h"), Card.new("6h")])
    ivey = evaluator.evaluate(board, [Card.new("Ac"), Card.new("2d")])
    assert dwan < ivey
    assert game.is_over() and game.get_scores() == {DWAN: 27_650.0, IVEY: -27_650.0}

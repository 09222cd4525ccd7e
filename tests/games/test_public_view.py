"""The public (spectator) view of each game, and the conformance check that guards it."""

from __future__ import annotations

import pytest

from games.bulls_and_cows.game import BullsAndCowsGame
from games.core import Game
from games.core.conformance import check_public_view
from games.core.registry import available_game_ids, get_game_spec
from games.liars_dice.game import LiarsDiceGame
from games.poker.game import PokerGame
from games.sealed_bid_recruitment.game import SealedBidRecruitmentGame
from games.simple_card.game import SimpleCardGame
from games.split_or_steal.game import SplitOrStealGame

FAST_CONFIGS = {"poker": {"hands": 12}, "chess": {"games": 1}}


@pytest.mark.parametrize("game_id", available_game_ids())
def test_every_game_passes_the_public_view_check(game_id: str) -> None:
    check_public_view(game_id, seeds=range(2), config=FAST_CONFIGS.get(game_id))


@pytest.mark.parametrize(
    ("game_class", "attribute", "config", "message"),
    [
        # Poker without its hook shows the hole cards of hands that were folded (mucked).
        (PokerGame, "public_payload", {"hands": 12}, "your_cards"),
        (LiarsDiceGame, "secret_fields", None, "your_dice"),
        (SealedBidRecruitmentGame, "sealed_fields", None, "your_fit"),
        (BullsAndCowsGame, "sealed_fields", None, "your_qa_history"),
        (SimpleCardGame, "secret_fields", None, "hand"),
    ],
)
def test_the_check_catches_a_state_that_leaks(
    monkeypatch: pytest.MonkeyPatch,
    game_class: type[Game],
    attribute: str,
    config: dict[str, int] | None,
    message: str,
) -> None:
    default = getattr(Game, attribute)
    monkeypatch.setattr(game_class, attribute, default if callable(default) else frozenset())
    with pytest.raises(AssertionError, match=message):
        check_public_view(game_class.game_type, seeds=range(3), config=config)


def test_the_check_catches_a_simultaneous_choice_shown_before_the_round_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        SplitOrStealGame, "public_action", classmethod(lambda cls, phase, action, revealed: action)
    )
    with pytest.raises(AssertionError, match="shows the choice before the round ends"):
        check_public_view("split-or-steal", seeds=range(2))


def test_the_check_catches_mucked_cards_in_a_later_history(monkeypatch) -> None:
    """A view that hides the current hand but not finished ones in ``history``."""

    def leaky(cls, method, payload, revealed):  # type: ignore[no-untyped-def]
        view = Game.public_payload.__func__(cls, method, payload, revealed)  # type: ignore[attr-defined]
        if "your_cards" in view:
            view["your_cards"] = None
        return view

    monkeypatch.setattr(PokerGame, "public_payload", classmethod(leaky))
    with pytest.raises(AssertionError, match="history of round"):
        check_public_view("poker", seeds=range(3), config={"hands": 12})


def test_poker_shows_hole_cards_only_of_hands_shown_down() -> None:
    state = {
        "your_cards": ["As", "Kd"],
        "history": [
            {"round": 1, "showdown": False, "your_cards": ["2c", "7h"]},
            {"round": 2, "showdown": True, "your_cards": ["Qs", "Qh"]},
        ],
    }
    live = PokerGame.public_payload("on_turn", state, None)
    assert live["your_cards"] is None
    assert [h["your_cards"] for h in live["history"]] == [None, ["Qs", "Qh"]]
    folded = PokerGame.public_payload("on_turn", state, {"showdown": False})
    assert folded["your_cards"] is None
    shown = PokerGame.public_payload("on_turn", state, {"showdown": True})
    assert shown["your_cards"] == ["As", "Kd"]


def test_bulls_and_cows_probes_and_guesses_show_once_the_round_is_over() -> None:
    probe = {"type": "question", "code": "0123"}
    guess = {"type": "guess", "code": "4567"}
    assert BullsAndCowsGame.public_action("question", probe, None) is None
    assert BullsAndCowsGame.public_action("guess", guess, None) is None
    assert BullsAndCowsGame.public_action("question", probe, {"round": 1}) == probe
    assert BullsAndCowsGame.public_action("guess", guess, {"round": 1}) == guess
    asked = [{"question": "0123", "answer": {"bulls": 1, "cows": 0}}]
    state = {"phase": "guess", "your_qa_history": asked}
    assert BullsAndCowsGame.public_payload("on_turn", state, None)["your_qa_history"] is None
    shown = BullsAndCowsGame.public_payload("on_turn", state, {"round": 1})
    assert shown["your_qa_history"] == asked


def test_chess_hides_nothing() -> None:
    spec = get_game_spec("chess")
    state = {"fen": "x", "color": "white", "moves": ["e2e4"]}
    assert spec.game_class.public_payload("on_turn", state, None) == state
    assert spec.game_class.public_action("play", {"type": "move"}, None) == {"type": "move"}

"""Match pages show a readable replay per game: every game a transcript of moves; chess a board
to step through; poker a hand log."""

from __future__ import annotations

import pytest
from arena.submissions.services import house_submission_ensure
from arena.workflows.dispatch import match_schedule as match_create
from arena.workflows.matches import match_run
from django.test import Client

from games.core import available_game_ids, get_game_spec

pytestmark = pytest.mark.django_db


def played(game: str) -> str:
    bots = sorted(get_game_spec(game).bots)
    match = match_create(
        kind="ranked",
        submissions=[house_submission_ensure(game=game, bot=b) for b in bots[:2]],
    )
    match_run(match_id=match.pk)
    response = Client().get(f"/matches/{match.pk}/")
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("game", [g for g in available_game_ids() if g != "poker"])
def test_every_game_has_a_replay(game: str) -> None:
    page = played(game)
    assert "finished" in page
    assert "Replay" in page or "Hand log" in page


@pytest.mark.skipif("chess" not in available_game_ids(), reason="chess is not in this tree")
def test_chess_shows_boards_to_step_through() -> None:
    page = played("chess")
    assert "data-stepper" in page and page.count("<svg") > 10


@pytest.mark.skipif("poker" not in available_game_ids(), reason="poker is not in this tree")
def test_poker_shows_a_hand_log() -> None:
    page = played("poker")
    assert "finished" in page and "Hand log" in page and "preflop" in page


def test_round_results_read_as_words_by_seat_name() -> None:
    from arena.matches.replays import round_rows

    rounds = [
        {
            "round": 1,
            "result": {
                "p0": {
                    "round": 1,
                    "your_choice": "steal",
                    "opponent_choice": "split",
                    "your_points": 100,
                    "opponent_points": 0,
                },
                "p1": {
                    "round": 1,
                    "your_choice": "split",
                    "opponent_choice": "steal",
                    "your_points": 0,
                    "opponent_points": 100,
                },
            },
        }
    ]
    (row,) = round_rows(rounds, {0: "ann v1", 1: "bob v2"})
    assert row["points"] == "ann v1 100, bob v2 0"
    assert row["details"] == ["ann v1: choice = steal", "bob v2: choice = split"]

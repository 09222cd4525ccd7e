"""Bulls and Cows: bulls and cows, lock-out, the shared-cycle split, the cycle limit, the views."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.bulls_and_cows.game import BullsAndCowsGame
from games.bulls_and_cows.solver import ALL_CODES, probes_to_crack, score
from games.core import ActionParseError, IllegalActionError, get_game_spec
from tests.games.helpers import UNTIMED_QUIET, new_game, round_state, strict_parser, untimed_match


def _game(seed: int = 0, **config: int) -> BullsAndCowsGame:
    return new_game(BullsAndCowsGame, seed, **config)


def _ask(game: BullsAndCowsGame, *probes: str) -> None:
    for probe in probes:
        game.step({"action_type": "question", "code": probe})


def _guess(game: BullsAndCowsGame, *guesses: str | None) -> dict:
    info: dict = {}
    for guess in guesses:
        action = (
            {"action_type": "pass"} if guess is None else {"action_type": "guess", "code": guess}
        )
        info, _ = game.step(action)
    return info


def _wrong(code: str) -> str:
    return next(c for c in ALL_CODES if c != code)


@pytest.mark.parametrize(
    ("probe", "code", "answer"),
    [
        ("0123", "0123", (4, 0)),
        ("0123", "3210", (0, 4)),
        ("0123", "0456", (1, 0)),
        ("0123", "1045", (0, 2)),
        ("0123", "4567", (0, 0)),
        ("5678", "5687", (2, 2)),
    ],
)
def test_answers_count_bulls_and_cows(probe: str, code: str, answer: tuple[int, int]) -> None:
    assert score(probe, code) == answer
    game = _game()
    game.code = code
    p0, _ = game.players
    _ask(game, probe)
    assert round_state(game, p0)["your_qa_history"] == [
        {"question": probe, "answer": {"bulls": answer[0], "cows": answer[1]}}
    ]


def test_codes_are_four_distinct_digits_drawn_from_the_seed() -> None:
    codes = {_game(seed).code for seed in range(50)}
    assert len(codes) > 40
    assert all(len(set(c)) == 4 and c.isdigit() for c in codes)
    assert _game(7).code == _game(7).code


def test_the_first_correct_guess_scores_the_pot() -> None:
    game = _game()
    p0, p1 = game.players
    _ask(game, "0123", "4567")
    info = _guess(game, game.code, None)
    result = info["round_result"]
    assert result[p0]["your_points"] == 100 and result[p1]["your_points"] == 0
    assert result[p1]["code"] == result[p0]["code"] and result[p0]["your_guess_cycle"] == 1
    assert game.get_scores() == {p0: 100, p1: 0} and game.get_round() == 2


def test_two_correct_guesses_in_one_cycle_split_the_pot() -> None:
    game = _game()
    p0, p1 = game.players
    _ask(game, "0123", "4567")
    result = _guess(game, game.code, game.code)["round_result"]
    assert result[p0]["your_points"] == result[p1]["your_points"] == 50


def test_a_wrong_guess_locks_the_player_out_and_the_other_plays_on() -> None:
    game = _game()
    p0, p1 = game.players
    code = game.code
    _ask(game, "0123", "4567")
    assert "round_result" not in _guess(game, _wrong(code), None)
    assert round_state(game, p1)["opponent_locked_out"] is True
    assert round_state(game, p1)["opponent_guessed"] is True
    assert round_state(game, p0)["your_locked_out"] is True
    assert game.get_current_player() == p1  # the locked-out seat sits out
    _ask(game, "0123")
    assert game.get_public_state()["phase"] == "guess"
    result = _guess(game, code)["round_result"]
    assert result[p1]["your_points"] == 100 and result[p0]["opponent_points"] == 100


def test_both_locked_out_scores_nothing() -> None:
    game = _game()
    p0, p1 = game.players
    _ask(game, "0123", "4567")
    result = _guess(game, _wrong(game.code), _wrong(game.code))["round_result"]
    assert result[p0]["outcome"] == "all_locked_out"
    assert game.get_scores() == {p0: 0, p1: 0}


def test_the_round_ends_empty_after_the_cycle_limit() -> None:
    game = _game()
    p0, p1 = game.players
    for cycle in range(1, 11):
        assert game.get_public_state()["cycle"] == cycle
        _ask(game, "0123", "4567")
        info = _guess(game, None, None)
    assert info["round_result"][p0]["outcome"] == "cycle_limit"
    assert info["round_result"][p0]["cycles"] == 10
    assert game.get_scores() == {p0: 0, p1: 0} and game.get_round() == 2


def test_bad_codes_are_refused_with_the_reason_and_aliases_work() -> None:
    game = _game()
    parser = strict_parser("bulls-and-cows")
    valid = game.get_available_actions()
    assert parser.parse({"type": "question", "text": "0123"}, valid) == {
        "action_type": "question",
        "code": "0123",
    }
    with pytest.raises(ActionParseError, match="repeats a digit"):
        parser.parse({"type": "question", "code": "0113"}, valid)
    with pytest.raises(ActionParseError, match="exactly 4 digits"):
        parser.parse({"type": "question", "code": "12a4"}, valid)
    with pytest.raises(ActionParseError, match="string of 4 distinct digits"):
        parser.parse({"type": "question", "code": 123}, valid)
    with pytest.raises(IllegalActionError, match="question phase"):
        game.step({"action_type": "pass"})
    _ask(game, "0123", "4567")
    guess_valid = game.get_available_actions()
    assert parser.parse({"type": "guess", "word": "9876"}, guess_valid)["code"] == "9876"
    with pytest.raises(IllegalActionError, match="repeats a digit"):
        game.step({"action_type": "guess", "code": "9966"})


def test_the_second_seat_sees_nothing_of_the_first_seats_probe_or_guess() -> None:
    for phase_probes in (("0123",), ("4567",)):
        game = _game()
        _ask(game, *phase_probes)
        first_view = round_state(game, game.players[1])
        assert first_view["your_qa_history"] == []
    game_a, game_b = _game(), _game()
    _ask(game_a, "0123", "4567")
    _ask(game_b, "0123", "4567")
    _guess(game_a, _wrong(game_a.code))
    _guess(game_b, None)
    p1 = game_a.players[1]
    assert round_state(game_a, p1) == round_state(game_b, p1)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.lists(st.integers(0, 10**6), max_size=150))
def test_scores_are_bounded_and_probes_stay_private(seed: int, moves: list[int]) -> None:
    game = _game(seed)
    rng = random.Random(seed)
    for pick in moves:
        if game.is_over():
            break
        for pid in game.players:
            view = round_state(game, pid)
            other = game.opponent_of(pid)
            assert view["your_qa_history"] == game.get_private_state(pid)["qa_history"]
            # neither the secret code nor the other seat's probes may reach this view
            real_code, real_qa = game.code, game.qa[other]
            game.code = "9876" if real_code != "9876" else "0123"
            game.qa[other] = [{"question": "5432", "answer": {"bulls": 0, "cows": 0}}]
            assert round_state(game, pid) == view
            game.code, game.qa[other] = real_code, real_qa
        phase = game.get_public_state()["phase"]
        code = ALL_CODES[pick % len(ALL_CODES)]
        if phase == "question":
            game.step({"action_type": "question", "code": code})
        elif pick % 3 == 0:
            game.step({"action_type": "guess", "code": game.code if rng.random() < 0.3 else code})
        else:
            game.step({"action_type": "pass"})
    for score_ in game.get_scores().values():
        assert 0 <= score_ <= 100 * len(game.finished)
    assert sum(game.get_scores().values()) <= 100 * len(game.finished)


class _Passive:
    """Asks the same question and never guesses: the strong bot plays unopposed."""

    GAME = "bulls-and-cows"

    def on_turn(self, state: dict) -> dict:
        if state["phase"] == "question":
            return {"type": "question", "code": "9876"}
        return {"type": "pass"}


@pytest.mark.slow  # over 30 s on two busy cores: out of make test-fast
def test_the_strong_bot_cracks_every_code_within_seven_probes_when_unopposed() -> None:
    strong = get_game_spec("bulls-and-cows").bots["strong"]
    for seed in range(12):
        record = untimed_match(
            "bulls-and-cows",
            (strong, "strong"),
            (_Passive, "passive"),
            seed=seed,
            settings=UNTIMED_QUIET,
        )
        for entry in record.rounds:
            mine = entry["result"]["p0"]
            assert mine["your_points"] == 100, (seed, mine)
            assert mine["your_guess_cycle"] <= 7 and mine["your_questions"] <= 7


@pytest.mark.slow  # over 30 s on two busy cores: out of make test-fast
def test_the_minimax_prober_needs_at_most_seven_probes_on_a_sample_of_codes() -> None:
    sample = random.Random(2024).sample(ALL_CODES, 150)
    assert max(probes_to_crack(code) for code in sample) <= 7


def test_defaults_are_five_rounds_of_ten_cycles_with_a_pot_of_100() -> None:
    game = _game()
    assert game.total_rounds == 5 and game.config.pot == 100
    view = round_state(game, game.players[0])
    assert view["cycle_limit"] == 10 and view["cycle"] == 1 and view["pot"] == 100
    assert view["your_locked_out"] is False and view["opponent_guessed"] is False


def test_the_strong_bots_probe_search_stops_at_its_deadline_and_keeps_only_finished_answers() -> (
    None
):
    from games.bulls_and_cows import solver

    code = "1234"
    history = ((solver.FIRST_PROBE, solver.score(solver.FIRST_PROBE, code)),)
    second = solver.quickest_probe(history)
    history = (*history, (second, solver.score(second, code)))
    # Cut at once (a deadline already past): a sound probe, the first code still possible or
    # better, and not kept.
    cut = solver.quickest_probe_by(history, deadline=0.0)
    assert cut in solver.ALL_CODES or len(set(cut)) == 4
    assert history not in solver._QUICKEST
    # With time: the full search's answer, kept for later moves.
    assert solver.quickest_probe_by(history, deadline=None) == solver.quickest_probe(history)
    assert solver._QUICKEST[history] == solver.quickest_probe(history)

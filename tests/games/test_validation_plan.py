"""The short validation match of every game: it exercises every lifecycle call with the
starter agent, stays within its turn cap, and its time bound follows from its config."""

from __future__ import annotations

import pytest

from games.core import InProcessAgentHandle, MatchSettings, available_game_ids, get_game_spec
from games.core.referee import play_match
from games.core.registry import offline_judge
from games.core.validation import validation_plan

LIFECYCLE = {"on_match_start", "on_round_start", "on_turn", "on_round_end", "on_match_end"}


@pytest.mark.parametrize("game", available_game_ids())
def test_the_starter_answers_every_call_of_its_short_validation_match(game: str) -> None:
    plan = validation_plan(game)
    source = get_game_spec(game).starter_source()
    record = play_match(
        game,
        [InProcessAgentHandle.from_source(source) for _ in range(2)],
        seed=7,
        config=plan.config,
        settings=MatchSettings(max_turns=plan.max_turns),
        judge=offline_judge(game),
    )
    assert record.platform_error is None
    assert {s.reason for s in record.seats} == {"normal"}
    assert {e.get("method") for e in record.log} >= LIFECYCLE
    assert 1 <= record.turns <= plan.max_turns
    # Shorter than the full default match (rounds), and a stated bound of a few minutes at most.
    assert plan.rounds <= get_game_spec(game).config_class().model_dump().get("rounds", 99)
    assert plan.bound_s() <= 180.0


def test_the_bound_counts_every_call_at_its_whole_budget() -> None:
    plan = validation_plan("chess")
    assert plan.config["games"] == 2 and plan.config["max_plies"] == 6
    settings = MatchSettings(turn_timeout_s=2.0, init_timeout_s=10.0, backstop_grace_s=1.0)
    # 12 turns and, for each of the two seats, two hooks a round (2 rounds) and on_match_end.
    assert plan.bound_s(settings) == 10.0 + 1.0 + (12 + 2 * (2 * 2 + 1)) * 3.0


def test_the_referee_stops_a_match_at_its_turn_cap_and_still_ends_it_properly() -> None:
    source = get_game_spec("chess").starter_source()
    record = play_match(
        "chess",
        [InProcessAgentHandle.from_source(source) for _ in range(2)],
        seed=1,
        settings=MatchSettings(max_turns=5),
    )
    assert record.turns == 5
    stops = [e for e in record.log if e.get("method") == "referee" and "note" in e]
    assert stops and "stopped after 5 turns" in stops[0]["note"]
    assert [e["method"] for e in record.log if e.get("method") == "on_match_end"] == [
        "on_match_end",
        "on_match_end",
    ]
    assert {s.reason for s in record.seats} == {"normal"}


def test_the_docs_state_each_games_bound() -> None:
    from pathlib import Path

    using = Path(__file__).resolve().parents[2] / "docs" / "using.md"
    text = using.read_text(encoding="utf-8")
    for game in available_game_ids():
        plan = validation_plan(game)
        row = f"| {game} | {plan.rounds} | {plan.max_turns} | {plan.bound_s():.0f} s |"
        assert row in text, row

"""The referee's outcome paths (docs/architecture.md), each as a user would see it in the record."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from games.core import (
    AgentCrash,
    AgentTimeout,
    InProcessAgentHandle,
    MatchRecord,
    MatchSettings,
    PlatformError,
    play_match,
)
from games.simple_card.bots import HighestBot, LowestBot


def handle(cls: type, name: str | None = None) -> InProcessAgentHandle:
    return InProcessAgentHandle(cls, name or cls.__name__)


def seat0(record: MatchRecord):
    return record.seats[0]


class Illegal:
    GAME = "simple-card"

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"type": "play_card", "card": 999}


class RaisesOnce:
    GAME = "simple-card"

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(state)
        if len(self.calls) == 1:
            raise RuntimeError("boom")
        print("recovered with", state.get("attempt"))
        return {"type": "play_card", "card": state["hand"][0]}


class Sleepy:
    GAME = "simple-card"
    delay_s = 0.3

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        time.sleep(self.delay_s)
        return {"type": "play_card", "card": state["hand"][0]}


class BadInit:
    GAME = "simple-card"

    def __init__(self) -> None:
        raise ValueError("cannot start")

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:  # pragma: no cover
        return {}


class WrongGame(HighestBot):
    GAME = "chess"


class RoundEndRaises(HighestBot):
    def on_round_end(self, result: dict[str, Any]) -> None:
        raise KeyError("oops")


class Crashing(InProcessAgentHandle):
    def call(self, method: str, payload: Any, timeout_s: float) -> Any:
        if method == "on_turn":
            raise AgentCrash("the process exited with code 137 (out of memory)")
        return super().call(method, payload, timeout_s)


class PlatformDown(InProcessAgentHandle):
    def start(self, *, game_id: str, timeout_s: float) -> None:
        raise PlatformError("the Docker engine does not answer")


def test_normal_match_is_plain_json_with_outcomes() -> None:
    record = play_match("simple-card", [handle(HighestBot), handle(LowestBot)], seed=4)
    data = json.loads(json.dumps(record.to_dict(), allow_nan=False))
    assert {s["reason"] for s in data["seats"]} == {"normal"}
    outcomes = sorted(s["outcome"] for s in data["seats"])
    assert outcomes in (["loss", "win"], ["draw", "draw"])
    assert data["rounds_played"] == 3 and data["turns"] == 6
    methods = [e["method"] for e in data["log"]]
    assert methods.count("on_turn") == 6
    assert methods.count("on_round_start") == 6 and methods.count("on_round_end") == 6
    assert methods[-2:] == ["on_match_end", "on_match_end"]
    assert MatchRecord.from_dict(data).to_dict() == data


def test_four_illegal_actions_forfeit_and_the_log_keeps_four_reasons() -> None:
    record = play_match("simple-card", [handle(Illegal), handle(HighestBot)], seed=1)
    s0, s1 = record.seats
    assert (s0.outcome, s0.reason) == ("loss", "illegal")
    assert (s1.outcome, s1.reason) == ("win", "normal")
    refused = [e for e in record.log if e["method"] == "on_turn" and e["seat"] == 0]
    assert len(refused) == 4
    assert all("play_card" in e["illegal"] for e in refused)
    assert [e["payload"].get("attempt") for e in refused] == [None, 1, 2, 3]
    assert refused[1]["payload"]["error"] == refused[0]["illegal"]
    assert "the last of the 4:" in s0.detail and "illegal actions in a row" not in s0.detail
    assert record.winner == 1


def test_an_exception_then_a_legal_move_finishes_normally() -> None:
    agent = RaisesOnce()
    record = play_match(
        "simple-card", [InProcessAgentHandle(lambda: agent, "raiser"), handle(LowestBot)], seed=2
    )
    assert seat0(record).reason == "normal"
    retry = agent.calls[1]
    assert retry["attempt"] == 1
    assert "RuntimeError: boom" in retry["error"] and "Traceback" in retry["error"]
    printed = [e["stdout"] for e in record.log if e["seat"] == 0 and e["method"] == "on_turn"]
    assert "recovered with 1\n" in printed


def test_a_timeout_forfeits() -> None:
    settings = MatchSettings(turn_timeout_s=0.1)
    record = play_match("simple-card", [handle(Sleepy), handle(HighestBot)], settings=settings)
    assert (seat0(record).outcome, seat0(record).reason) == ("loss", "timeout")
    assert "0.1 s" in seat0(record).detail


def test_a_timeout_logs_what_the_sandbox_saw_of_the_agents_threads() -> None:
    """A sandbox's timeout carries what its backstop saw (threads, CPU, the longest wait for a
    CPU): the match's log keeps it beside the wall time, to tell a slow agent from a busy host."""
    seen = {"threads": 3, "threads_at_start": 3, "ran_ms": 1500.0, "longest_wait_ms": 20.0}

    class TimesOut(InProcessAgentHandle):
        def call(self, method: str, payload: Any, timeout_s: float) -> Any:
            if method == "on_turn":
                raise AgentTimeout(method, timeout_s + 0.01, timeout_s, host_wait=seen)
            return super().call(method, payload, timeout_s)

    record = play_match("simple-card", [TimesOut(HighestBot, "slow"), handle(LowestBot)], seed=1)
    assert (seat0(record).outcome, seat0(record).reason) == ("loss", "timeout")
    (failed,) = [e for e in record.log if e["seat"] == 0 and e["method"] == "on_turn"]
    assert failed["host_wait"] == seen
    assert "the referee stopped waiting after" in failed["error"]


def test_a_seat_whose_own_clock_ran_out_is_not_said_to_be_cut_by_the_referee() -> None:
    """A model's seat keeps its own move clock (5 s) and gives up before the referee's backstop
    (the budget plus a second of grace): its log says so, not that the referee stopped it."""

    class OwnClock(InProcessAgentHandle):
        def call(self, method: str, payload: Any, timeout_s: float) -> Any:
            if method == "on_turn":
                raise AgentTimeout(method, 2.08, 2.0)
            return super().call(method, payload, timeout_s)

    record = play_match("simple-card", [OwnClock(HighestBot, "model"), handle(LowestBot)], seed=1)
    assert (seat0(record).outcome, seat0(record).reason) == ("loss", "timeout")
    (failed,) = [e for e in record.log if e["seat"] == 0 and e["method"] == "on_turn"]
    assert failed["error"] == (
        "on_turn did not answer within its 2.00 s budget: its own clock ran out after 2.08 s"
    )


def test_the_time_bank_absorbs_overruns_and_untimed_matches_wait() -> None:
    banked = MatchSettings(turn_timeout_s=0.1, time_bank_s=5.0)
    record = play_match("simple-card", [handle(Sleepy), handle(HighestBot)], settings=banked)
    assert seat0(record).reason == "normal"
    untimed = MatchSettings(timed=False, turn_timeout_s=0.1)
    record = play_match("simple-card", [handle(Sleepy), handle(HighestBot)], settings=untimed)
    assert seat0(record).reason == "normal"


def test_a_crash_forfeits() -> None:
    record = play_match("simple-card", [Crashing(HighestBot, "c"), handle(LowestBot)])
    assert (seat0(record).outcome, seat0(record).reason) == ("loss", "crash")
    assert "out of memory" in seat0(record).detail


def test_init_errors_forfeit_before_any_turn() -> None:
    record = play_match("simple-card", [handle(BadInit), handle(LowestBot)])
    assert (seat0(record).outcome, seat0(record).reason) == ("loss", "init_error")
    assert "cannot start" in seat0(record).detail
    assert record.turns == 0
    record = play_match("simple-card", [handle(WrongGame), handle(BadInit)])
    assert [s.reason for s in record.seats] == ["init_error", "init_error"]
    assert "'chess'" in seat0(record).detail
    assert record.winner is None


def test_an_exception_in_another_hook_is_logged_not_punished() -> None:
    record = play_match("simple-card", [handle(RoundEndRaises), handle(LowestBot)], seed=3)
    assert seat0(record).reason == "normal"
    errors = [e["error"] for e in record.log if e["method"] == "on_round_end" and e["seat"] == 0]
    assert errors and all("KeyError" in e for e in errors)


def test_platform_errors_are_not_charged_to_agents() -> None:
    record = play_match("simple-card", [PlatformDown(HighestBot, "x"), handle(LowestBot)])
    assert record.platform_error == "the Docker engine does not answer"
    assert [s.outcome for s in record.seats] == [None, None]
    assert record.platform_error_retryable, "the engine may answer on the next attempt"


def house(cls: type, name: str) -> InProcessAgentHandle:
    """A seat the platform plays with its own code, as the platform seats a house bot."""
    return InProcessAgentHandle(cls, name, platform_seat=True)


@pytest.mark.parametrize("seat", [0, 1])
def test_a_house_bot_that_overruns_is_a_platform_error_and_nobody_forfeits(seat: int) -> None:
    settings = MatchSettings(turn_timeout_s=0.1)
    seats = [handle(HighestBot), handle(HighestBot)]
    seats[seat] = house(Sleepy, "slow-house-bot")
    record = play_match("simple-card", seats, settings=settings)
    assert record.platform_error is not None
    assert "slow-house-bot" in record.platform_error and "0.1 s" in record.platform_error
    assert "nobody forfeits" in record.platform_error
    assert "a timeout forfeits" not in record.platform_error
    assert [s.outcome for s in record.seats] == [None, None]
    assert [s.reason for s in record.seats] == [None, None]
    assert record.winner is None
    # The same bot uploaded by a user is charged its time: the platform's leniency is its own.
    seats[seat] = handle(Sleepy, "slow-upload")
    record = play_match("simple-card", seats, settings=settings)
    assert record.platform_error is None
    assert (record.seats[seat].outcome, record.seats[seat].reason) == ("loss", "timeout")


def test_a_house_bot_that_crashes_fails_to_start_or_plays_illegally_is_a_platform_error() -> None:
    for seats in (
        [Crashing(HighestBot, "c", platform_seat=True), handle(LowestBot)],
        [house(BadInit, "b"), handle(LowestBot)],
        [handle(LowestBot), house(Illegal, "i")],
    ):
        record = play_match("simple-card", seats, seed=1)
        assert record.platform_error is not None and "house bot" in record.platform_error
        assert [s.outcome for s in record.seats] == [None, None]
    # An entrant's failure beside a house bot still forfeits as before.
    record = play_match("simple-card", [handle(Illegal), house(HighestBot, "h")], seed=1)
    assert record.platform_error is None
    assert [(s.outcome, s.reason) for s in record.seats] == [("loss", "illegal"), ("win", "normal")]


@pytest.mark.parametrize("bug", [KeyError("secret"), ValueError("secret"), TypeError("secret")])
def test_an_engine_bug_ends_the_match_as_a_platform_error_nobody_forfeits(
    bug: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    from games.simple_card.game import SimpleCardGame

    real_step = SimpleCardGame.step
    steps = {"n": 0}

    def buggy_step(self: SimpleCardGame, action: dict[str, Any]) -> Any:
        steps["n"] += 1
        if steps["n"] == 3:
            raise bug
        return real_step(self, action)

    monkeypatch.setattr(SimpleCardGame, "step", buggy_step)
    record = play_match("simple-card", [handle(HighestBot), handle(LowestBot)], seed=1)
    assert [(s.outcome, s.reason) for s in record.seats] == [(None, None), (None, None)]
    assert record.platform_error is not None and type(bug).__name__ in record.platform_error
    assert "secret" not in record.platform_error  # the message may quote hidden state
    assert record.platform_traceback is not None and "buggy_step" in record.platform_traceback
    assert not [e for e in record.log if e.get("illegal")], "no refusal was charged to anyone"
    assert record.platform_error_retryable is False, "the same seed would fail the same way"


def test_only_illegal_action_error_is_an_illegal_action() -> None:
    record = play_match("simple-card", [handle(Illegal), handle(LowestBot)], seed=1)
    assert record.platform_error is None
    assert (seat0(record).outcome, seat0(record).reason) == ("loss", "illegal")


def test_the_same_seed_replays_the_same_match() -> None:
    def strip(record: MatchRecord) -> list[Any]:
        return [(e["method"], e.get("payload"), e.get("action")) for e in record.log]

    a = play_match("split-or-steal", [handle(HighestBot), handle(LowestBot)], seed=9)
    assert a.seats[0].reason == "init_error"  # a simple-card bot cannot sit at split-or-steal
    from games.split_or_steal.bots import BOTS

    runs = [
        play_match(
            "split-or-steal",
            [handle(BOTS["message-reader"]), handle(BOTS["tit-for-tat"])],
            seed=9,
        )
        for _ in range(2)
    ]
    assert strip(runs[0]) == strip(runs[1])


def test_live_events_carry_the_refusal_reason_and_the_action() -> None:
    seen: list[dict[str, Any]] = []
    play_match(
        "simple-card",
        [handle(Illegal), handle(HighestBot)],
        seed=1,
        on_event=lambda e: seen.append(dict(e)),
    )
    turns = [e for e in seen if e["method"] == "on_turn"]
    assert all("illegal" in e for e in turns if e["seat"] == 0)
    assert all("action" in e for e in turns if e["seat"] == 1)


class Delayed(InProcessAgentHandle):
    """The platform around the agent is slow (a busy daemon, a starved host): each call and the
    load take ``platform_s`` of wall time that the agent's own window does not include."""

    platform_s = 0.0
    window_s: float | None = None  # a window to report instead of the measured one
    backstops: list[float]

    def start(self, *, game_id: str, timeout_s: float) -> float | None:
        self.backstops = [timeout_s]
        began = time.perf_counter()
        window = super().start(game_id=game_id, timeout_s=timeout_s)
        time.sleep(self.platform_s)
        assert window is not None and window <= time.perf_counter() - began
        return window

    def call(self, method: str, payload: Any, timeout_s: float) -> Any:
        import dataclasses

        self.backstops.append(timeout_s)
        result = super().call(method, payload, timeout_s)
        time.sleep(self.platform_s)
        wall_ms = result.elapsed_ms + self.platform_s * 1000
        window = result.elapsed_ms if self.window_s is None else self.window_s * 1000
        return dataclasses.replace(result, elapsed_ms=window, wall_ms=wall_ms, cpu_ms=0.01)


def test_platform_delays_are_not_charged_to_the_agent() -> None:
    slow = Delayed(HighestBot, "slow")
    slow.platform_s = 0.15
    settings = MatchSettings(turn_timeout_s=0.1, init_timeout_s=0.1)
    record = play_match("simple-card", [slow, handle(LowestBot)], settings=settings)
    assert seat0(record).reason == "normal", seat0(record).detail
    turns = [e for e in record.log if e["seat"] == 0 and e["method"] == "on_turn"]
    assert turns and all(e["wall_ms"] >= 150 > 100 > e["elapsed_ms"] for e in turns)
    assert all(e["cpu_ms"] == 0.01 for e in turns)
    load = next(e for e in record.log if e["seat"] == 0 and e["method"] == "load")
    assert load["wall_ms"] >= 150 > load["elapsed_ms"]
    # The backstop each call got: its budget (0.1 s, on_match_start what loading left of it)
    # plus the grace.
    grace = settings.backstop_grace_s
    assert all(0.09 + grace < backstop <= 0.1 + grace for backstop in slow.backstops)


def test_a_window_over_the_budget_times_out_even_when_it_answered() -> None:
    late = Delayed(HighestBot, "late")
    late.window_s = 0.25
    settings = MatchSettings(turn_timeout_s=0.2)
    record = play_match("simple-card", [late, handle(LowestBot)], settings=settings)
    assert (seat0(record).outcome, seat0(record).reason) == ("loss", "timeout")
    assert "0.2 s" in seat0(record).detail
    last = [e for e in record.log if e["seat"] == 0][-1]
    assert last["elapsed_ms"] == 250 and last["wall_ms"] is not None and "0.20 s" in last["error"]


def test_loading_is_charged_its_own_window_against_the_init_budget() -> None:
    class SlowLoad(Delayed):
        platform_s = 0.35

        def start(self, *, game_id: str, timeout_s: float) -> float | None:
            super().start(game_id=game_id, timeout_s=timeout_s)
            return 0.3

    record = play_match(
        "simple-card",
        [SlowLoad(HighestBot, "slow-load"), handle(LowestBot)],
        settings=MatchSettings(init_timeout_s=0.2),
    )
    assert seat0(record).reason == "init_error"
    assert "over its 0.2 s budget" in seat0(record).detail


class RaisesSecret:
    GAME = "simple-card"

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        secret_line = "the password is hunter2"
        raise ValueError(secret_line)


class RecordsMatchEnd:
    GAME = "simple-card"
    seen: list[dict[str, Any]] = []

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"type": "play_card", "card": state["hand"][0]}

    def on_match_end(self, result: dict[str, Any]) -> None:
        RecordsMatchEnd.seen.append(result)


def test_the_opponent_is_told_a_neutral_reason_never_the_exception_text() -> None:
    RecordsMatchEnd.seen = []
    record = play_match("simple-card", [handle(RaisesSecret), handle(RecordsMatchEnd)], seed=3)
    assert (seat0(record).outcome, seat0(record).reason) == ("loss", "illegal")
    assert "hunter2" in seat0(record).detail  # the owner still reads it
    (told,) = RecordsMatchEnd.seen
    assert told["reason"] == "illegal: the opponent's agent raised an exception"
    sent = [e for e in record.log if e["method"] == "on_match_end" and e["seat"] == 1]
    assert "hunter2" not in json.dumps(sent)


def test_the_opponent_of_an_illegal_mover_is_not_told_the_refusal_reason() -> None:
    RecordsMatchEnd.seen = []
    play_match("simple-card", [handle(Illegal), handle(RecordsMatchEnd)], seed=1)
    (told,) = RecordsMatchEnd.seen
    assert (
        told["reason"]
        == "illegal: the opponent's agent made illegal actions until its retries ran out"
    )
    assert "999" not in told["reason"]


class AlwaysRaises:
    GAME = "simple-card"

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        values = [1, 2]
        return {"type": "play_card", "card": values[5]}


class SaysAString:
    GAME = "simple-card"

    def on_turn(self, state: dict[str, Any]) -> str:
        return "play 5"


def test_an_exception_is_logged_once_and_the_forfeit_reads_in_one_line() -> None:
    record = play_match("simple-card", [handle(AlwaysRaises), handle(HighestBot)])
    refused = [e for e in record.log if e.get("illegal")]
    assert len(refused) == 4
    for entry in refused:
        assert entry["error"].count("Traceback") == 1
        assert "Traceback" not in entry["illegal"] and "\n" not in entry["illegal"]
    loser, winner = record.seats
    assert "\n" not in loser.detail and "IndexError" in loser.detail
    assert winner.detail == "won by forfeit: the opponent made four illegal actions in a row"
    summary = record.summary()
    assert summary.startswith("HighestBot won by forfeit: AlwaysRaises made four illegal")
    assert "score 0" not in summary and "0.0" not in summary


def test_a_returned_string_is_explained_with_an_example_of_what_to_return() -> None:
    record = play_match("simple-card", [handle(SaysAString), handle(HighestBot)])
    illegal = next(e["illegal"] for e in record.log if e.get("illegal"))
    assert "JSON object found" not in illegal
    assert "'play 5'" in illegal and '{"type": "play_card"' in illegal


def test_the_summary_names_the_winner_and_prints_scores_as_people_write_them() -> None:
    record = play_match("simple-card", [handle(HighestBot), handle(LowestBot)], seed=1)
    winner = next(s for s in record.seats if s.outcome == "win")
    assert record.summary().startswith(f"{winner.name} won: ")
    assert ".0" not in record.summary()


def test_the_summary_of_an_agent_against_itself_says_which_seat_is_which() -> None:
    record = play_match("simple-card", [handle(HighestBot, "me"), handle(LowestBot, "me")], seed=1)
    summary = record.summary()
    assert "me (seat 1)" in summary and "me (seat 2)" in summary, summary
    assert summary.startswith(("me (seat 1) won", "me (seat 2) won", "Draw")), summary
    other = play_match("simple-card", [handle(HighestBot, "a"), handle(LowestBot, "b")], seed=1)
    assert "seat" not in other.summary()

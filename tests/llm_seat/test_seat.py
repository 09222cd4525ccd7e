"""Model seats through the real referee against a loopback OpenAI-compatible server.

Seed 003's rules for model seats: 3 re-asks carrying the referee's reason and the fresh board,
the 4th refusal forfeits (poker: folds the hand); the timed move budget cuts the request and
forfeits; untimed has no move clock; provider failures (429, 5xx, refused connection, a body that
is not a chat completion) are retried then end the match as a platform error, never a forfeit.
"""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

import pytest

from devtools.fakemodel import FakeModel
from games.core import InProcessAgentHandle, MatchSettings, house_bot_class, play_match
from llm_seat import Endpoint, LlmSeat, Sampling, SeatPolicy
from llm_seat.handle import CallRecord, NoHooks

KEY = "sk-test-SECRET-value-0123456789"
CHESS_SHORT = {"games": 1, "max_plies": 6}


class Ledger(NoHooks):
    def __init__(self) -> None:
        self.calls: list[CallRecord] = []

    def record(self, call: CallRecord) -> None:
        self.calls.append(call)


def seat(fake_url: str, *, hooks: Any = None, **policy: Any) -> LlmSeat:
    policy.setdefault("backoff_s", 0.01)
    return LlmSeat(
        endpoint=Endpoint(name="fake", base_url=fake_url, model="fake-1", api_key=KEY),
        sampling=Sampling(max_tokens=64),
        policy=SeatPolicy(**policy),
        hooks=hooks or NoHooks(),
        display_name="model",
        sleep=lambda s: None,
    )


def bot(game: str, name: str) -> InProcessAgentHandle:
    return InProcessAgentHandle(house_bot_class(game, name), display_name=name)


def chess(model: LlmSeat, *, timed: bool = True, config: dict[str, Any] | None = None) -> Any:
    return play_match(
        "chess",
        [model, bot("chess", "random")],
        seed=1,
        config=config or CHESS_SHORT,
        settings=MatchSettings(timed=timed),
    )


def test_a_legal_model_plays_a_whole_chess_game_with_the_adapters_prompt() -> None:
    with FakeModel() as fake:
        ledger = Ledger()
        record = chess(seat(fake.base_url, hooks=ledger))
    assert record.platform_error is None
    assert record.seats[0].reason == "normal"
    first = fake.requests[0]
    assert first["headers"]["authorization"] == f"Bearer {KEY}"
    messages = first["body"]["messages"]
    assert messages[0]["role"] == "system" and "chess" in messages[0]["content"]
    assert "Current position (FEN)" in messages[1]["content"]
    # JSON output on: the schema is the adapter's, narrowed to the legal moves.
    schema = first["body"]["response_format"]["json_schema"]["schema"]
    assert "e2e4" in schema["properties"]["move"]["enum"]
    assert first["body"]["max_tokens"] == 64
    assert all(c.outcome == "answered" and c.prompt_tokens == 100 for c in ledger.calls)
    moves = [e for e in record.log if e.get("method") == "on_turn" and e["seat"] == 0]
    assert moves and all(e.get("action") for e in moves)


def test_three_refusals_are_re_asked_with_the_reason_and_the_fresh_board() -> None:
    with FakeModel() as fake:
        fake.script.extend(
            [
                ("answer", '{"type": "move", "move": "e2e5"}'),
                ("answer", "I think I will play the king's pawn."),
                ("answer", '{"type": "move", "move": "a1a8"}'),
            ]
        )
        record = chess(seat(fake.base_url, json_output=False))
    assert record.platform_error is None
    assert record.seats[0].reason == "normal"
    first_turn = fake.requests[:4]
    assert len(first_turn[0]["body"]["messages"]) == 2
    assert "response_format" not in first_turn[0]["body"]
    for n, req in enumerate(first_turn[1:], start=1):
        msgs = req["body"]["messages"]
        assert msgs[2]["role"] == "assistant"
        assert f"attempt {n + 1} of 4" in msgs[3]["content"]
        # The fresh board comes with the reason.
        assert "Current position (FEN)" in msgs[3]["content"]
    assert "e2e5" in first_turn[1]["body"]["messages"][3]["content"]
    assert "king's pawn" in first_turn[2]["body"]["messages"][2]["content"]
    refused = [e for e in record.log if e.get("illegal") and e["seat"] == 0]
    assert len(refused) == 3


def test_the_fourth_refusal_forfeits() -> None:
    with FakeModel(default=("answer", '{"type": "move", "move": "e2e5"}')) as fake:
        record = chess(seat(fake.base_url))
    assert record.seats[0].outcome == "loss" and record.seats[0].reason == "illegal"
    assert len(fake.requests) == 4


def test_poker_folds_the_hand_after_four_refusals_and_plays_on() -> None:
    with FakeModel() as fake:
        fake.script.extend([("answer", "raise a lot")] * 4)
        record = play_match(
            "poker",
            [seat(fake.base_url), bot("poker", "always-call")],
            seed=3,
            config={"hands": 2},
            settings=MatchSettings(),
        )
    assert record.platform_error is None
    referee = [e for e in record.log if e.get("method") == "referee"]
    assert referee and referee[0]["action"] == {"type": "fold"}
    assert record.seats[0].reason == "normal"


def test_the_timed_budget_cuts_the_request_and_forfeits() -> None:
    with FakeModel(default=("slow", 30, '{"type": "move", "move": "e2e4"}')) as fake:
        record = chess(seat(fake.base_url, move_budget_s=0.5))
    assert record.seats[0].reason == "timeout"
    assert "move budget" in record.seats[0].detail
    assert len(fake.requests) == 1


def test_re_asks_share_the_move_budget() -> None:
    with FakeModel() as fake:
        fake.script.extend(
            [("slow", 0.4, '{"type": "move", "move": "e2e5"}')] * 2
            + [("slow", 5, '{"type": "move", "move": "e2e4"}')]
        )
        record = chess(seat(fake.base_url, move_budget_s=1.0, json_output=False))
    assert record.seats[0].reason == "timeout"
    assert len(fake.requests) == 3


def test_untimed_has_no_move_clock_only_the_per_call_cap() -> None:
    with FakeModel() as fake:
        fake.script.extend([("slow", 1.2, '{"type": "move", "move": "e2e4"}')])
        record = chess(seat(fake.base_url, move_budget_s=0.5), timed=False)
    assert record.seats[0].reason == "normal"
    with FakeModel(default=("slow", 30, "{}")) as fake:
        record = chess(seat(fake.base_url, untimed_call_cap_s=0.5), timed=False)
    assert record.seats[0].reason == "timeout"


def test_rate_limits_are_retried_and_not_charged() -> None:
    with FakeModel() as fake:
        fake.script.extend([("status", 429), ("status", 503)])
        ledger = Ledger()
        record = chess(seat(fake.base_url, hooks=ledger))
    assert record.platform_error is None and record.seats[0].reason == "normal"
    assert [c.outcome for c in ledger.calls[:3]] == ["provider_error", "provider_error", "answered"]


@pytest.mark.parametrize("behaviour", [("status", 500), ("garbage",)])
def test_persistent_provider_failure_is_a_platform_error_not_a_forfeit(
    behaviour: tuple[Any, ...],
) -> None:
    with FakeModel(default=behaviour) as fake:
        record = chess(seat(fake.base_url, provider_attempts=3))
        assert len(fake.requests) == 3
    assert record.platform_error and "fake" in record.platform_error
    assert all(s.outcome is None for s in record.seats)
    assert KEY not in record.platform_error


def test_a_refused_connection_is_a_platform_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    record = chess(seat(f"http://127.0.0.1:{port}/v1", provider_attempts=2))
    assert record.platform_error and "could not reach" in record.platform_error


def test_a_wrong_key_is_not_retried_and_validation_rejects_with_the_reason() -> None:
    with FakeModel(default=("status", 401)) as fake:
        record = chess(seat(fake.base_url))
        assert len(fake.requests) == 1
    assert record.platform_error and "HTTP 401" in record.platform_error
    with FakeModel(default=("status", 401)) as fake:
        record = chess(seat(fake.base_url, validation=True))
    assert record.seats[0].reason == "crash"
    assert "refused the key" in record.seats[0].detail
    assert KEY not in json.dumps(record.to_dict())


def test_a_ten_megabyte_reply_is_cut_and_refused_then_the_seat_plays_on() -> None:
    with FakeModel() as fake:
        fake.script.append(("huge", 10 * 1024 * 1024))
        record = chess(seat(fake.base_url, max_response_bytes=256 * 1024))
    assert record.platform_error is None and record.seats[0].reason == "normal"
    refused = [e for e in record.log if e.get("illegal")]
    assert refused and "ReplyTooLarge" in refused[0]["illegal"]


def test_an_endless_stream_is_cut_at_the_budget() -> None:
    with FakeModel(default=("endless",)) as fake:
        done = threading.Event()
        result: list[Any] = []

        def run() -> None:
            result.append(chess(seat(fake.base_url, move_budget_s=1.0, max_response_bytes=1 << 30)))
            done.set()

        threading.Thread(target=run, daemon=True).start()
        assert done.wait(60), "the match with an endless stream did not end within 60 s"
    assert result[0].seats[0].reason == "timeout"


def test_an_endless_stream_is_cut_at_the_byte_cap_when_untimed() -> None:
    with FakeModel() as fake:
        fake.script.append(("endless",))
        record = chess(seat(fake.base_url, max_response_bytes=64 * 1024), timed=False)
    assert record.seats[0].reason == "normal"
    assert any("ReplyTooLarge" in (e.get("illegal") or "") for e in record.log)


def test_deeply_nested_json_in_a_reply_never_breaks_the_referee() -> None:
    with FakeModel() as fake:
        fake.script.append(("answer", '{"a":' * 5000 + "1" + "}" * 5000))
        record = chess(seat(fake.base_url, json_output=False))
    assert record.platform_error is None and record.seats[0].reason == "normal"

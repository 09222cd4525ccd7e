"""A real model in a seat: SmolLM2-135M-Instruct on llama-cpp-python (``make llm-server``),
through the real referee. With JSON output constrained to the legal moves it plays legal chess;
in free text it exercises the re-ask and forfeit path; either way every match ends and no
provider failure is charged."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devtools.localmodel import MISSING, local_model_server, server_python
from games.core import InProcessAgentHandle, MatchSettings, house_bot_class, play_match
from llm_seat import Endpoint, LlmSeat, Sampling, SeatPolicy
from tests.conftest import require_part

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def model_url() -> Iterator[str]:
    require_part(server_python() is not None, MISSING)
    with local_model_server() as url:
        yield url


def seat(url: str, **policy: object) -> LlmSeat:
    return LlmSeat(
        endpoint=Endpoint(name="smollm2", base_url=url, model="smollm2", json_style="json_object"),
        sampling=Sampling(max_tokens=48, temperature=0.0),
        policy=SeatPolicy(move_budget_s=30.0, **policy),  # type: ignore[arg-type]
        display_name="smollm2",
    )


def bot(game: str, name: str) -> InProcessAgentHandle:
    return InProcessAgentHandle(house_bot_class(game, name), display_name=name)


def test_json_output_plays_only_legal_chess_moves(model_url: str) -> None:
    record = play_match(
        "chess",
        [seat(model_url), bot("chess", "random")],
        seed=5,
        config={"games": 1, "max_plies": 8},
        # Untimed: a loaded CI machine must not turn a slow answer into a timeout here.
        settings=MatchSettings(timed=False),
    )
    assert record.platform_error is None
    mine = [e for e in record.log if e.get("method") == "on_turn" and e["seat"] == 0]
    assert mine and not any(e.get("illegal") for e in mine)
    assert record.seats[0].reason == "normal"


def test_free_text_goes_through_the_re_ask_path_and_the_match_ends(model_url: str) -> None:
    record = play_match(
        "chess",
        [seat(model_url, json_output=False), bot("chess", "random")],
        seed=5,
        config={"games": 1, "max_plies": 4},
        settings=MatchSettings(timed=False),
    )
    assert record.platform_error is None
    assert record.seats[0].reason in ("normal", "illegal")


def test_poker_with_json_output(model_url: str) -> None:
    record = play_match(
        "poker",
        [seat(model_url), bot("poker", "always-call")],
        seed=5,
        config={"hands": 2},
        # Untimed, as above: the timed budget is tested against the loopback server
        # (tests/llm_seat/test_seat.py), never against a loaded machine's real model.
        settings=MatchSettings(timed=False),
    )
    assert record.platform_error is None
    assert record.seats[0].reason == "normal"

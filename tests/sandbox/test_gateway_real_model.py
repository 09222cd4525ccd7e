"""An agent written the way the hosted platforms' docs show (``from openai import OpenAI``,
``OpenAI()`` with no arguments, one file) plays a match in Docker, calling the real local model
(SmolLM2 on llama-cpp-python, ``make llm-server``) through the gateway."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devtools.localmodel import MISSING, local_model_server, server_python
from games.core import MatchSettings, play_match
from llm_seat import Endpoint
from llm_seat.gateway import ClientBackend, GatewayModel
from sandbox import ModelGateway, SandboxLimits, create_handle
from tests.conftest import require_part
from tests.sandbox.conftest import CountingHooks, require_docker

pytestmark = [pytest.mark.slow, pytest.mark.docker]

AGENT = """
from openai import OpenAI

client = OpenAI()


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] <= 2:
            reply = client.chat.completions.create(
                model="smollm2",
                messages=[
                    {"role": "system", "content": "Answer with one number."},
                    {"role": "user", "content": f"Pick a card from {state['hand']}."},
                ],
                max_tokens=8,
            )
            print("SMOLLM2 SAID", repr(reply.choices[0].message.content))
        return {"type": "play_card", "card": max(state["hand"])}
"""


QUIET = """
class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        return {"type": "play_card", "card": min(state["hand"])}
"""


@pytest.fixture(scope="module")
def model_url() -> Iterator[str]:
    require_part(server_python() is not None, MISSING)
    with local_model_server() as url:
        yield url


def test_an_sdk_agent_calls_the_real_model_through_the_gateway_in_docker(model_url: str) -> None:
    require_docker()
    hooks = CountingHooks()
    endpoint = Endpoint(name="smollm2", base_url=model_url, model="smollm2")
    gateway = ModelGateway(
        ClientBackend([GatewayModel(name="smollm2", endpoint=endpoint, hooks=hooks)])
    )
    handles = [
        create_handle(AGENT, name="sdk-agent", limits=SandboxLimits(), gateway=gateway),
        create_handle(QUIET, name="quiet", limits=SandboxLimits()),
    ]
    record = play_match("simple-card", handles, seed=2, settings=MatchSettings())
    assert record.platform_error is None
    assert str(record.seats[0].reason) == "normal", record.seats[0].detail
    said = "".join(e.get("stdout") or "" for e in record.log if e.get("seat") == 0)
    assert said.count("SMOLLM2 SAID") == 2, said
    # Two answers; on a loaded machine a call may also have run out of its 10 s (a 504 the SDK
    # raises; the refused turn is asked again and calls again): each one in the ledger.
    answered = [r for r in hooks.records if r.outcome == "answered"]
    assert len(answered) == 2 and {r.outcome for r in hooks.records} <= {"answered", "timeout"}
    assert all(r.completion_tokens > 0 for r in answered)

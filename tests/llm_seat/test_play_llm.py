"""``arena play AGENT.py --opponent llm:MODEL``: a local match against a model endpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena_cli.main import main
from devtools.fakemodel import FakeModel

STARTER = Path(__file__).resolve().parents[2] / "games" / "simple_card" / "starter_agent.py"


def test_play_against_a_model_endpoint_with_its_key_from_the_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_MODEL_KEY", "sk-local-xyz")
    with FakeModel() as fake:
        code = main(
            [
                "play", str(STARTER), "--opponent", "llm:fake-1", "--sandbox", "process",
                "--llm-base-url", fake.base_url, "--llm-key-env", "MY_MODEL_KEY", "--json",
            ]
        )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    result = json.loads(out)
    assert [s["name"] for s in result["seats"]] == ["starter_agent", "llm:fake-1"]
    assert fake.requests and fake.requests[0]["body"]["model"] == "fake-1"
    assert fake.requests[0]["headers"]["authorization"] == "Bearer sk-local-xyz"


def test_a_model_opponent_needs_a_base_url(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["play", str(STARTER), "--opponent", "llm:x", "--sandbox", "process"])
    assert code != 0
    assert "--llm-base-url" in capsys.readouterr().err


MODEL_AGENT = """
from openai import OpenAI


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            reply = OpenAI().chat.completions.create(
                model="fake-2", messages=[{"role": "user", "content": "which card?"}]
            )
            print("THE MODEL SAYS", reply.choices[0].message.content)
        return {"type": "play_card", "card": max(state["hand"])}
"""


@pytest.mark.parametrize("sandbox", ["process", pytest.param("docker", marks=pytest.mark.docker)])
def test_play_gives_the_agent_a_model_gateway_with_the_key_kept_outside(
    sandbox: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if sandbox == "docker":
        from tests.sandbox.conftest import require_docker

        require_docker()
    agent = tmp_path / "model_agent.py"
    agent.write_text(MODEL_AGENT)
    monkeypatch.setenv("MY_MODEL_KEY", "sk-local-xyz")
    with FakeModel(default=("answer", "the highest")) as fake:
        code = main(
            [
                "play", str(agent), "--sandbox", sandbox, "--log", str(tmp_path / "log.json"),
                "--agent-model-base-url", fake.base_url, "--agent-model", "fake-2",
                "--agent-model-key-env", "MY_MODEL_KEY", "--json",
            ]
        )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert fake.requests[0]["body"]["model"] == "fake-2"
    assert fake.requests[0]["headers"]["authorization"] == "Bearer sk-local-xyz"
    log = json.loads((tmp_path / "log.json").read_text())["log"]
    printed = "".join(e.get("stdout") or "" for e in log)
    assert "THE MODEL SAYS the highest" in printed
    assert "sk-local-xyz" not in printed


def test_agent_model_flags_need_the_base_url(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["play", str(STARTER), "--agent-model", "x", "--sandbox", "process"])
    assert code != 0
    assert "--agent-model-base-url" in capsys.readouterr().err

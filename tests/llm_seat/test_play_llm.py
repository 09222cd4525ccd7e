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

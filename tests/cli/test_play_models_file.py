"""``arena play --agent-model NAME``: the agent's gateway to models registered by name in a TOML
file (``arena_cli/models_file.py``), through the same code path as ``--agent-model-base-url``,
in Docker and in the process sandbox; the key stays in ``arena play``'s environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena_cli.main import main
from devtools.fakemodel import FakeModel

AGENT = """
from openai import OpenAI


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            reply = OpenAI().chat.completions.create(
                model="helper", messages=[{"role": "user", "content": "which card?"}]
            )
            print("THE MODEL SAYS", reply.choices[0].message.content)
        return {"type": "play_card", "card": max(state["hand"])}
"""


def _models_file(path: Path, base_url: str) -> Path:
    path.write_text(
        f"""
[models.helper]
base_url = "{base_url}"
model = "fake-id"
key_env = "MY_MODEL_KEY"
max_tokens = 16

[models.other]
base_url = "http://127.0.0.1:9/v1"
"""
    )
    return path


def test_play_gives_the_agent_the_files_model_by_name(
    backend: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = tmp_path / "caller.py"
    agent.write_text(AGENT)
    monkeypatch.setenv("MY_MODEL_KEY", "sk-local-xyz")
    with FakeModel(default=("answer", "the highest")) as fake:
        models = _models_file(tmp_path / "models.toml", fake.base_url)
        code = main(
            [
                "play", str(agent), "--sandbox", backend, "--log", str(tmp_path / "log.json"),
                "--agent-model", "helper", "--models-file", str(models), "--json",
            ]
        )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert len(fake.requests) == 1
    request = fake.requests[0]
    # The file's model id and max_tokens reach the endpoint, with the key from the environment.
    assert request["body"]["model"] == "fake-id" and request["body"]["max_tokens"] == 16
    assert request["headers"]["authorization"] == "Bearer sk-local-xyz"
    log = json.loads((tmp_path / "log.json").read_text())["log"]
    printed = "".join(e.get("stdout") or "" for e in log)
    assert "THE MODEL SAYS the highest" in printed
    assert "sk-local-xyz" not in printed


def test_the_default_file_is_in_the_config_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = tmp_path / "caller.py"
    agent.write_text(AGENT)
    monkeypatch.setenv("ARENA_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("MY_MODEL_KEY", "sk-local-xyz")
    (tmp_path / "config").mkdir()
    with FakeModel(default=("answer", "ok")) as fake:
        _models_file(tmp_path / "config" / "models.toml", fake.base_url)
        code = main(["play", str(agent), "--sandbox", "process", "--agent-model", "helper"])
    assert code == 0, capsys.readouterr().out
    assert [r["body"]["model"] for r in fake.requests] == ["fake-id"]


@pytest.mark.parametrize(
    ("content", "args", "said"),
    [
        (None, [], "no such file"),
        ("[models.helper]\nbase_url = 'http://x/v1'\n", ["--agent-model", "nope"], "it has helper"),
        ("[models.helper\n", [], "is not TOML"),
        ("[models.helper]\nbase_url = 'ftp://x'\n", [], "base_url must be an http"),
        ("[models.helper]\nbase_url = 'http://x/v1'\nkey = 'sk'\n", [], "unknown key key"),
        (
            "[models.helper]\nbase_url = 'http://x/v1'\nkey_env = 'UNSET_KEY_VAR'\n",
            [], "UNSET_KEY_VAR is not set",
        ),
        (
            "[models.helper]\nbase_url = 'http://x/v1'\n",
            ["--agent-model-base-url", "http://x/v1"], "not both",
        ),
    ],
)  # fmt: skip
def test_a_wrong_models_file_is_explained(
    content: str | None,
    args: list[str],
    said: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("UNSET_KEY_VAR", raising=False)
    path = tmp_path / "models.toml"
    if content is not None:
        path.write_text(content)
    agent = tmp_path / "caller.py"
    agent.write_text(AGENT)
    if "--agent-model" not in args:
        args = ["--agent-model", "helper", *args]
    code = main(["play", str(agent), "--sandbox", "process", "--models-file", str(path), *args])
    assert code == 2
    assert said in capsys.readouterr().err

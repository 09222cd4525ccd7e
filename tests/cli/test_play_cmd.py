"""``arena play``: a local match in the sandbox, for a person or as one JSON object."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena_cli.main import main
from tests.sandbox.conftest import PLAY_HIGHEST, agent_source

STARTER = Path(__file__).resolve().parents[2] / "games" / "simple_card" / "starter_agent.py"


def test_json_result_has_the_documented_shape(
    backend: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "match.json"
    code = main(
        [
            "play",
            str(STARTER),
            "--opponent",
            "house:lowest",
            "--seed",
            "5",
            "--sandbox",
            backend,
            "--json",
            "--log",
            str(log),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    result = json.loads(out)
    assert set(result) == {"game", "seed", "winner", "seats", "rounds", "turns", "duration_s"}
    assert result["game"] == "simple-card" and result["seed"] == 5
    assert [s["name"] for s in result["seats"]] == ["starter_agent", "house:lowest"]
    assert all(set(s) == {"name", "outcome", "reason", "score"} for s in result["seats"])
    assert result["rounds"] == 3 and result["turns"] == 6
    record = json.loads(log.read_text())
    assert any("Playing 3 rounds" in (e.get("stdout") or "") for e in record["log"])


def test_people_see_what_their_agent_printed(
    backend: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    mine = tmp_path / "mine.py"
    mine.write_text(
        agent_source(PLAY_HIGHEST.replace("return", "print('my hand', state['hand'])\n    return"))
    )
    other = tmp_path / "other.py"
    other.write_text(agent_source("def on_turn(self, state):\n    raise ValueError('nope')\n"))
    assert main(["play", str(mine), "--opponent", str(other), "--sandbox", backend]) == 0
    out = capsys.readouterr().out
    assert "| my hand [" in out
    assert "ValueError: nope" in out
    assert "other: loss" in out and "illegal" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--opponent", "house:nobody"], "no house bot 'nobody'"),
        (["--game", "no-such-game"], "unknown game"),
    ],
)
def test_mistakes_on_the_command_line_are_explained(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", str(STARTER), "--sandbox", "process", *args]) == 2
    assert message in capsys.readouterr().err


def test_an_agent_without_game_needs_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "nogame.py"
    path.write_text("class Agent:\n    def on_turn(self, s):\n        return None\n")
    assert main(["play", str(path), "--sandbox", "process"]) == 2
    assert "pass --game" in capsys.readouterr().err

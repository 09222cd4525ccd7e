"""The command line's rough edges a newcomer met: each message says what to do, and a script can
tell when the agent never started."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena_cli.main import main

STARTER = Path(__file__).resolve().parents[2] / "games" / "simple_card" / "starter_agent.py"


def test_an_agent_that_fails_to_load_exits_non_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text(
        'class Agent:\n    GAME = "simple-card"\n    def __init__(self):\n'
        '        raise RuntimeError("no")\n'
    )
    code = main(["play", str(broken), "--sandbox", "process"])
    captured = capsys.readouterr()
    assert code == 1
    assert "failed to start" in captured.err
    code = main(["play", str(broken), "--sandbox", "process", "--json"])
    assert code == 1 and json.loads(capsys.readouterr().out)["seats"][0]["reason"] == "init_error"


def test_a_house_bot_named_without_house_is_suggested(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["play", str(STARTER), "--opponent", "lowest", "--sandbox", "process"])
    err = capsys.readouterr().err
    assert code == 2 and "did you mean house:lowest?" in err
    code = main(["play", str(STARTER), "--opponent", "nobody", "--sandbox", "process"])
    err = capsys.readouterr().err
    assert code == 2 and "house:NAME" in err and "house:lowest" in err


def test_a_file_without_class_agent_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text('class Bot:\n    GAME = "simple-card"\n')
    code = main(["play", str(bot), "--sandbox", "process"])
    err = capsys.readouterr().err
    assert code == 2 and "defines no class Agent" in err and "GAME =" in err


def test_round_hooks_are_not_labelled_with_a_turn(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["play", str(STARTER), "--opponent", "house:lowest", "--sandbox", "process"])
    out = capsys.readouterr().out
    assert code == 0
    hooks = [line for line in out.splitlines() if ".on_round_end" in line]
    assert hooks and all(" t" not in line.split("]")[0] for line in hooks)
    assert "won" in out or "Draw" in out
    assert ".0," not in out  # scores as people write them


def test_games_json_names_house_bots_as_the_api_does(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games", "--json"]) == 0
    games = json.loads(capsys.readouterr().out)
    assert all("house_bots" in g and "bots" not in g for g in games)


def test_submit_without_a_token_says_where_to_get_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    code = main(["submit", str(STARTER), "--server", "http://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 2 and "http://127.0.0.1:9/accounts/token/" in err and "--token" in err

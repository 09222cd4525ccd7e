"""The command line a participant uses against a real server (Django's live server):
``arena login`` remembers the server and token so ``arena submit`` needs neither, the token
page shows that exact command, and ``arena play`` exits non-zero when the agent forfeits."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from arena_cli.main import main

pytestmark = pytest.mark.django_db(transaction=True)

ILLEGAL_AGENT = """
class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        return {"type": "play_card", "card": 999}
"""


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv("ARENA_CONFIG_DIR", str(folder))
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    monkeypatch.delenv("ARENA_SERVER", raising=False)
    return folder


def test_login_then_submit_without_server_or_token(
    live_server: Any,
    make_user: Any,
    config_dir: Path,
    starter_source: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from arena.submissions.models import Submission

    user = make_user("cli")
    client = Client()
    client.force_login(user)
    page = client.get("/accounts/token/", HTTP_HOST=live_server.url.split("//")[1])
    text = page.content.decode()
    from arena.accounts.models import ApiToken

    key = ApiToken.objects.get(user=user).key
    command = f"arena login --server {live_server.url} --token {key}"
    assert command in text and "arena submit my_agent.py" in text

    agent = tmp_path / "my_agent.py"
    agent.write_text(starter_source)
    # Before login: the error says how to get going.
    assert main(["submit", str(agent), "--no-wait"]) == 2
    assert "arena login --server URL --token TOKEN" in capsys.readouterr().err

    assert main(command.split()[1:]) == 0  # the exact command the page shows
    saved = config_dir / "credentials.json"
    assert stat.S_IMODE(os.stat(saved).st_mode) == 0o600
    assert "signed in to" in capsys.readouterr().out

    assert main(["submit", str(agent), "--no-wait"]) == 0
    assert Submission.objects.filter(agent__owner=user).count() == 1

    assert main(["login", "--server", live_server.url, "--token", "not-a-token"]) == 1
    assert main(["logout"]) == 0 and not saved.exists()


def test_play_exits_non_zero_when_the_agent_forfeits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = tmp_path / "illegal.py"
    agent.write_text(ILLEGAL_AGENT)
    code = main(["play", str(agent), "--sandbox", "process", "--opponent", "house:lowest"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "four illegal actions in a row" in err


def test_submit_and_login_say_why_the_server_refused_or_was_not_reached(
    live_server: Any,
    make_user: Any,
    config_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from arena.accounts.services import token_get_or_create

    key = token_get_or_create(user=make_user("cli")).key
    broken = tmp_path / "broken.py"
    broken.write_text("class Agent:\n    def on_turn(self, s:\n")
    code = main(["submit", str(broken), "--server", live_server.url, "--token", key, "--no-wait"])
    err = capsys.readouterr().err
    assert code == 1 and "arena submit: refused (400):" in err
    assert "  line 2: " in err and "[rule: syntax]" in err  # one line per detail
    assert main(["login", "--server", live_server.url, "--token", "not-a-token"]) == 1
    assert "arena login: refused (401):" in capsys.readouterr().err
    nowhere = "http://127.0.0.1:9"
    assert main(["submit", str(broken), "--server", nowhere, "--token", key]) == 1
    assert f"arena submit: cannot reach {nowhere}:" in capsys.readouterr().err

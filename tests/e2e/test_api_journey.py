"""The mission's journey through the API alone, with a real worker, Redis and PostgreSQL:
sign up, upload split-or-steal's starter, see it accepted, train against a house bot and read
its prints, activate it, and see ranked matches played and its Elo on the leaderboard."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena_cli.submit_cmd import ApiError, api_request, get_token, upload, wait_for_status
from games.core import available_game_ids, get_game_spec
from tests.conftest import described, wait_for
from tests.e2e.conftest import Stack

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.postgres]

GAME = "split-or-steal" if "split-or-steal" in available_game_ids() else "simple-card"


def wait_until(check, timeout_s: float = 120.0, every_s: float = 0.5):  # type: ignore[no-untyped-def]
    return wait_for(check, timeout_s=timeout_s, what=described(check), every_s=every_s)


def _create_user(stack: Stack, name: str) -> None:
    """A plain user ``name`` with the password ``<name>-pass-123``."""
    stack.manage(
        "shell",
        "-c",
        "from arena.accounts.models import User; "
        f"User.objects.create_user({name!r}, password={name + '-pass-123'!r})",
    )


def test_upload_train_activate_and_climb(stack: Stack, tmp_path: Path) -> None:
    _create_user(stack, "dana")
    token = get_token(stack.url, "dana", "dana-pass-123")
    agent = tmp_path / "starter.py"
    agent.write_text(get_game_spec(GAME).starter_source())
    submission = upload(stack.url, token, agent, name="starter")
    assert submission["status"] == "pending" and submission["game"] == GAME
    submission = wait_for_status(stack.url, token, submission["id"], timeout_s=120)
    assert submission["status"] == "accepted", submission["detail"]

    bot = sorted(get_game_spec(GAME).bots)[0]
    started = api_request(
        stack.url,
        "POST",
        "/api/training",
        token=token,
        body={"submission": submission["id"], "opponent": f"house:{bot}"},
    )
    match_id = started["match"]
    match = wait_until(
        lambda: (m := api_request(stack.url, "GET", f"/api/matches/{match_id}", token=token))[
            "status"
        ]
        in ("finished", "error")
        and m
    )
    assert match["status"] == "finished", match
    assert {p["outcome"] for p in match["participants"]} <= {"win", "loss", "draw"}
    log = api_request(stack.url, "GET", f"/api/matches/{match_id}/log", token=token)
    assert any(e.get("stdout") for e in log if e["seat"] == 0), "the starter's prints are visible"
    assert not any(e.get("stdout") for e in log if e["seat"] == 1)

    api_request(stack.url, "POST", f"/api/submissions/{submission['id']}/activate", token=token)
    label = f"starter v{submission['version']}"

    def rated() -> dict | None:  # type: ignore[type-arg]
        board = api_request(stack.url, "GET", f"/api/leaderboard/{GAME}?q=dana")
        row = next(r for r in board["rows"] if r["agent"] == label)
        return row if row["games"] >= 2 else None

    row = wait_until(rated, timeout_s=120)
    assert row["owner"] == "dana" and row["provisional"] is True
    assert row["wins"] + row["losses"] + row["draws"] == row["games"]
    assert row["rating"] != 1200.0 or row["draws"] == row["games"]


def test_a_broken_upload_is_refused_with_its_line(stack: Stack, tmp_path: Path) -> None:
    _create_user(stack, "erin")
    token = get_token(stack.url, "erin", "erin-pass-123")
    agent = tmp_path / "broken.py"
    agent.write_text(f'class Agent:\n    GAME = "{GAME}"\n    def on_turn(self, state)\n')
    with pytest.raises(ApiError) as refused:
        upload(stack.url, token, agent)
    assert refused.value.status == 400
    assert refused.value.details[0]["line"] == 3


def test_arena_submit_uploads_waits_and_explains_refusals(
    stack: Stack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena_cli.main import main

    _create_user(stack, "gil")
    login = ["--server", stack.url, "--username", "gil", "--password", "gil-pass-123"]
    good = tmp_path / "gil_bot.py"
    good.write_text(get_game_spec(GAME).starter_source())
    assert main(["submit", str(good), *login]) == 0
    out = capsys.readouterr().out
    assert "status: accepted" in out
    assert f"see it at {stack.url}/submissions/" in out  # the submission's page
    bad = tmp_path / "bad.py"
    bad.write_text(
        "class Agent:\n    GAME = 'no-such-game'\n    def on_turn(self, s):\n        pass\n"
    )
    assert main(["submit", str(bad), *login]) == 1
    err = capsys.readouterr().err
    assert "line 2" in err and "no-such-game" in err

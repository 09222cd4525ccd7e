"""Validation is a short, bounded match with progress on the page: an agent that thinks about a
second before every move (as a real chess engine does) is uploaded through the API with a real
worker, Redis, PostgreSQL and the Docker sandbox; its validation ends within the bound the
upload page states, and the submission page shows the turns played while it runs."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import requests

from arena_cli.submit_cmd import api_request, get_token, upload
from games.core import MatchSettings, get_game_spec
from games.core.validation import validation_plan
from tests.e2e.conftest import Stack
from tests.sandbox.conftest import require_docker

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

THINKING = """

import time as _time

_Starter = Agent


class Agent(_Starter):
    GAME = "{game}"

    def on_turn(self, round_state):
        _time.sleep(1.0)  # a second of thought before every move
        action = super().on_turn(round_state)
        if isinstance(action, dict) and action.get("type") == "fold":
            # Poker: play every hand out, so the validation lasts turns enough to be watched
            # (two starters folding preflop are done in two turns).
            action = {"type": "call"}
        return action
"""


def _signed_in(url: str, username: str, password: str) -> requests.Session:
    session = requests.Session()
    session.get(f"{url}/accounts/login/", timeout=30)
    response = session.post(
        f"{url}/accounts/login/",
        data={
            "username": username,
            "password": password,
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
        },
        headers={"Referer": f"{url}/accounts/login/"},
        timeout=30,
    )
    assert response.status_code == 200 and "sessionid" in session.cookies, response.text
    return session


@pytest.mark.parametrize("game", ["chess", "poker"])
def test_a_thinking_agent_is_validated_within_the_stated_bound_with_progress(
    stack: Stack, tmp_path: Path, game: str
) -> None:
    require_docker()  # the stack's worker runs agents in the Docker sandbox when it can
    name = f"think-{game}"
    stack.manage(
        "shell",
        "-c",
        f"from arena.accounts.models import User; User.objects.create_user({name!r}, "
        f"password='pw-{name}-123')",
    )
    token = get_token(stack.url, name, f"pw-{name}-123")
    page = _signed_in(stack.url, name, f"pw-{name}-123")
    # The upload page states the bound.
    bound_s = validation_plan(game).bound_s(MatchSettings())
    upload_page = page.get(f"{stack.url}/submissions/upload/", timeout=30).text
    assert f"{game} {bound_s:.0f} s" in upload_page, upload_page

    agent = tmp_path / f"{game}.py"
    agent.write_text(get_game_spec(game).starter_source() + THINKING.replace("{game}", game))
    submission = upload(stack.url, token, agent, name="thinker")
    progress: list[int] = []
    deadline = time.monotonic() + 600  # the validation may wait behind the ladder's matches
    while time.monotonic() < deadline:
        status = page.get(
            f"{stack.url}/submissions/{submission['id']}/",
            headers={"HX-Request": "true"},
            timeout=30,
        ).text
        found = re.search(r'id="validation-progress">Validation: (\d+) turns? played', status)
        if found:
            progress.append(int(found.group(1)))
        if 'id="submission-status">pending' not in status:
            break
        time.sleep(0.5)
    detail = api_request(stack.url, "GET", f"/api/submissions/{submission['id']}", token=token)
    assert detail["status"] == "accepted", detail
    match = api_request(stack.url, "GET", f"/api/matches/{detail['validation_match']}", token=token)
    took_s = float(match["duration_s"])
    print(f"{game}: validation of a 1-s-a-move agent took {took_s:.1f} s (bound {bound_s:.0f} s)")
    assert took_s <= bound_s, (took_s, bound_s)
    # The page showed it playing, turn by turn.
    assert progress and max(progress) >= 1, progress
    assert progress == sorted(progress), progress

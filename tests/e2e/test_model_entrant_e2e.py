"""A language model on the ladder as users meet it: the real local model (SmolLM2-135M-Instruct
on llama-cpp-python, ``make llm-server``), registered by the operator; a user enters it on chess
and on poker through the web form in headless Chromium, sees it validated by its self-play,
starts a training match against a house bot from its page, and watches a rated match against
another user's uploaded code agent. Model matches are played by the model pool (a threads
worker on the instance's ``llm`` queue, as ``make run`` starts it), the code seat in the Docker
sandbox; the rest by a worker with beat on every other queue, behind the real web server."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from arena_cli.submit_cmd import api_request, get_token, upload, wait_for_status
from devtools.localmodel import MISSING, local_model_server, server_python
from devtools.parts import ROOT
from games.core import get_game_spec
from tests.conftest import require_part
from tests.e2e.browser import browser_available, driven, wait_for
from tests.e2e.conftest import Stack, platform_stack
from tests.e2e.ladder import HOUSE_OFF, PAIR, shell_result
from tests.sandbox.conftest import require_docker

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.docker,
    pytest.mark.redis,
    pytest.mark.postgres,
    pytest.mark.slow,
]

#: Training and ranked matches cut short: two model moves in chess (the entrant has white), the
#: duplicate pair of poker hands (the entrant acts first in one of them). The model takes about a
#: second a call on an idle two-core host, tens of seconds on a loaded one.
SHORT = {"chess": {"games": 1, "max_plies": 4}, "poker": {"hands": 2}}
#: The model pool's Celery node: the test stops and resumes its consumption of the llm queue.
MODEL_NODE = "model@e2e"

#: The operator registers the model; each game's code author gets an account.
REGISTER = """
from arena.accounts.models import User
from arena.llm.models import LanguageModel
LanguageModel.objects.create(
    name="smollm2", display_name="SmolLM2 135M", base_url={url!r}, model_id="smollm2",
    json_style="json_object", default_max_tokens=48, requests_per_minute=100_000,
)
for game in {games!r}:
    User.objects.create_user(f"coder-{{game}}", password=f"pw-coder-{{game}}-123")
print("RESULT=0")
"""

#: Stop the model pool taking matches from the llm queue (``cancel_consumer``).
PAUSE = """
import json
from django.conf import settings
from arena.celery_app import app
replies = app.control.cancel_consumer(
    settings.ARENA_QUEUES["llm"], destination=[{node!r}], reply=True, timeout=30
)
print("RESULT=" + json.dumps(replies))
"""

#: Cut a queued match short, then let the model pool take it (``add_consumer``, even when the
#: match was not found). Prints how many matches were cut and the pool's replies.
SHORTEN_AND_RESUME = """
import json
from django.conf import settings
from arena.celery_app import app
from arena.matches.models import Match
try:
    n = Match.objects.filter(pk={match_id}, status="queued").update(config={config!r})
finally:
    replies = app.control.add_consumer(
        settings.ARENA_QUEUES["llm"], destination=[{node!r}], reply=True, timeout=30
    )
print("RESULT=" + json.dumps([n, replies]))
"""


def shell(stack: Stack, code: str) -> Any:
    """Run ``code`` in the stack's ``manage.py shell``; what it printed after ``RESULT=``."""
    return shell_result(stack.env, code)


def confirmed(replies: list[dict[str, dict[str, str]]]) -> None:
    """The model pool, and only it, answered a consumer change without an error."""
    assert [next(iter(r)) for r in replies] == [MODEL_NODE], replies
    assert all("error" not in r[MODEL_NODE] for r in replies), replies


@pytest.fixture(scope="module")
def model_url() -> Iterator[str]:
    require_part(server_python() is not None, MISSING)
    with local_model_server() as url:
        yield url


@pytest.fixture(scope="module")
def model_stack(model_url: str) -> Iterator[Stack]:
    """The platform in Docker with the model registered and the model pool running.

    Matchmaking's beat is left to its hour: the test runs the pass itself (``PAIR``) once the
    entrant and the code agent are the only entries on the game's ladder, so no pass pairs the
    entrant for a full-length match meanwhile. The move budget is generous: a
    loaded CI host must not turn a slow answer into a timeout (the budget itself is tested
    against the loopback server, tests/llm/test_seat.py).
    """
    require_part(browser_available(), "chromium and chromium-driver (apt-get install both)")
    require_docker()
    with platform_stack(
        exclude_roles=["llm"],
        ARENA_SANDBOX_BACKEND="docker",
        ARENA_ALLOW_PROCESS_SANDBOX="0",
        ARENA_MATCHMAKING_INTERVAL_S="3600",
        ARENA_LLM_MOVE_BUDGET_S="300",
    ) as stack:
        shell(stack, REGISTER.format(url=model_url, games=sorted(SHORT)))
        log_path = stack.logs / "model-worker.log"
        with log_path.open("wb") as log:
            # The model pool as `make run` starts it (arena_worker POOLS, POOL_EXTRA).
            worker = subprocess.Popen(
                [
                    sys.executable,
                    str(ROOT / "manage.py"),
                    "arena_worker",
                    "--role",
                    "llm",
                    "--concurrency",
                    "4",
                    "-n",
                    MODEL_NODE,
                    "--",
                    "--pool",
                    "threads",
                ],
                env={**stack.env, "ARENA_SANDBOX_POOL_SIZE": "0"},
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                wait_for(lambda: f"{MODEL_NODE} ready." in log_path.read_text(), 180)
                yield stack
            finally:
                worker.terminate()
                try:
                    worker.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    worker.kill()
                    worker.wait()


def sign_up(driver: Any, url: str, username: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(f"{url}/accounts/signup/")
    driver.find_element(By.NAME, "username").send_keys(username)
    driver.find_element(By.NAME, "password1").send_keys("a-long-pass-987")
    driver.find_element(By.NAME, "password2").send_keys("a-long-pass-987")
    driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    wait_for(lambda: "/accounts/signup/" not in driver.current_url, 30)


def text_of(driver: Any, css: str) -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.CSS_SELECTOR, css).text)


@pytest.mark.parametrize("game", ["chess", "poker"])
def test_a_model_entered_in_the_browser_trains_and_plays_rated_against_code(
    game: str, model_stack: Stack, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    stack = model_stack
    # The code agent's owner uploads the game's starter through the API; its self-play runs on
    # the main worker in Docker while the model's runs on the model pool.
    token = get_token(stack.url, f"coder-{game}", f"pw-coder-{game}-123")
    starter = tmp_path / "starter.py"
    starter.write_text(get_game_spec(game).starter_source())
    code = upload(stack.url, token, starter, name="starter")

    with driven(tmp_path) as driver:
        sign_up(driver, stack.url, f"owner-{game}")
        driver.get(f"{stack.url}/llm/new/")
        Select(driver.find_element(By.NAME, "model")).select_by_value("smollm2")
        Select(driver.find_element(By.NAME, "game")).select_by_value(game)
        driver.find_element(By.NAME, "name").send_keys("smol")
        driver.find_element(By.NAME, "temperature").send_keys("0")
        assert driver.find_element(By.NAME, "json_output").is_selected()
        driver.find_element(By.ID, "create-entrant").click()
        wait_for(lambda: re.search(r"/submissions/(\d+)/$", driver.current_url), 30)
        entrant_url = driver.current_url
        entrant_id = int(entrant_url.rstrip("/").rsplit("/", 1)[1])
        assert "SmolLM2 135M" in text_of(driver, "#model-entrant")
        # The page polls while pending and reloads with the verdict (the training form).
        wait_for(lambda: driver.find_elements(By.ID, "start-training"), 300)
        assert text_of(driver, "#submission-status") == "accepted", text_of(driver, "#status")

        # Training against a house bot, started on the page; cut short before the model pool,
        # held off the llm queue meanwhile, may take it.
        confirmed(shell(stack, PAUSE.format(node=MODEL_NODE)))
        Select(driver.find_element(By.NAME, "opponent")).select_by_index(0)
        assert "house bot" in text_of(driver, "select[name=opponent] option:checked")
        driver.find_element(By.ID, "start-training").click()
        training_id = int(
            wait_for(lambda: re.search(r"/matches/(\d+)/$", driver.current_url), 30)[1]
        )
        cut, replies = shell(
            stack,
            SHORTEN_AND_RESUME.format(match_id=training_id, config=SHORT[game], node=MODEL_NODE),
        )
        confirmed(replies)
        assert cut == 1, "the training match was taken before it was cut short"
        wait_for(lambda: text_of(driver, "#match-status") in ("finished", "error"), 300)
        assert text_of(driver, "#match-status") == "finished", text_of(driver, "main")
        driver.get(f"{stack.url}/llm/matches/{training_id}/")
        assert driver.find_elements(By.CSS_SELECTOR, "pre.model-answer"), text_of(driver, "main")

        # Both on the ladder: the entrant from its page, the code agent through the API.
        driver.get(entrant_url)
        driver.find_element(By.ID, "activate").click()
        assert "ladder" in wait_for(lambda: text_of(driver, ".flash"), 30)
        code = wait_for_status(stack.url, token, code["id"], timeout_s=300)
        assert code["status"] == "accepted", code["detail"]
        api_request(stack.url, "POST", f"/api/submissions/{code['id']}/activate", token=token)

        # Matchmaking pairs the two (the model pool held off the llm queue until the match is
        # cut short).
        assert shell(stack, HOUSE_OFF.format(game=game)) > 0
        confirmed(shell(stack, PAUSE.format(node=MODEL_NODE)))
        paired = shell(stack, PAIR.format(game=game))
        assert len(paired) == 1, paired
        ranked_id = paired[0]
        cut, replies = shell(
            stack,
            SHORTEN_AND_RESUME.format(match_id=ranked_id, config=SHORT[game], node=MODEL_NODE),
        )
        confirmed(replies)
        assert cut == 1, "the ranked match was taken before it was cut short"
        driver.get(f"{stack.url}/matches/{ranked_id}/")
        wait_for(lambda: text_of(driver, "#match-status") in ("finished", "error"), 300)
        assert text_of(driver, "#match-status") == "finished", text_of(driver, "main")
        # The owner reads the model's answers and the ledger of its calls.
        driver.get(f"{stack.url}/llm/matches/{ranked_id}/")
        answers = driver.find_elements(By.CSS_SELECTOR, "pre.model-answer")
        assert answers and driver.find_elements(By.CSS_SELECTOR, "details.model-ledger")

    # Rated on the one ladder: both seats moved from 1200, as anyone reads it.
    match = api_request(stack.url, "GET", f"/api/matches/{ranked_id}")
    seats = {p["submission"]: p for p in match["participants"]}
    assert set(seats) == {entrant_id, code["id"]}
    assert all(p["rating_before"] == 1200 and p["rating_after"] is not None for p in seats.values())
    board = api_request(stack.url, "GET", f"/api/leaderboard/{game}")["rows"]
    ours = {(r["owner"], r["kind"]): r["games"] for r in board if r["owner"] != "house"}
    assert ours == {(f"owner-{game}", "model"): 1, (f"coder-{game}", "code"): 1}, board
    # The public agent page names the model and nothing of its owner's settings.
    page = requests.get(
        f"{stack.url}/submissions/agents/{seats[entrant_id]['agent_id']}/", timeout=30
    ).text
    assert "A language model plays this agent: SmolLM2 135M." in page
    assert f"/matches/{ranked_id}/" in page and "Spend" not in page

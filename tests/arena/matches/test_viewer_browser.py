"""The replay viewer in real headless Chromium, for every game: a finished match's page steps
through the whole match with the shared player (buttons, keys, scrubber, play, a link to a
moment), and another user sees the public view only. Matches run with house bots in the process
sandbox; the page is served by Django's live server."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from arena.submissions.services import house_submission_ensure
from arena.workflows.dispatch import match_schedule
from arena.workflows.matches import match_run
from django.db import transaction

from games.core import available_game_ids, get_game_spec
from tests.e2e.browser import wait_for

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("scripted_judges"),
]

#: Small configs keep each game's match (and the walk through it) short; poker still plays
#: enough hands for every street and a showdown.
CONFIGS: dict[str, dict[str, Any]] = {"poker": {"hands": 10}}

#: Where screenshots go (kept for a person to look at when ARENA_VIEWER_SHOTS names a folder).
SHOTS = os.environ.get("ARENA_VIEWER_SHOTS")


def ranked_match(game: str) -> int:
    bots = sorted(get_game_spec(game).bots)[:2]
    with transaction.atomic():  # the config is set before the match is enqueued on commit
        match = match_schedule(
            kind="ranked", submissions=[house_submission_ensure(game=game, bot=b) for b in bots]
        )
        match.config = CONFIGS.get(game, {})
        match.save(update_fields=["config"])
    match_run(match_id=match.pk)
    return int(match.pk)


def position(driver: Any) -> tuple[int, int]:
    from selenium.webdriver.common.by import By

    text = driver.find_element(By.CSS_SELECTOR, "[data-position]").text
    at, total = (int(x) for x in text.split("/"))
    return at, total


#: Steps through every frame with the → key as a person would, checking each frame draws
#: something and its label matches the frame list; returns the problems found.
WALK = """
const player = window.arenaPlayer, problems = [];
player.show(0);
for (let i = 0; i < player.frames.length; i += 1) {
  if (i > 0) document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight"}));
  const stage = document.querySelector("[data-stage]");
  const label = document.querySelector("[data-frame-label]").textContent;
  if (player.at !== i) problems.push(`at ${player.at} instead of ${i}`);
  if (!stage.children.length) problems.push(`frame ${i + 1} draws nothing`);
  const want = player.frames[i].label;
  if (label !== want) problems.push(`frame ${i + 1} shows ${label}, not ${want}`);
}
return problems;
"""


@pytest.mark.parametrize("game", available_game_ids())
def test_the_viewer_steps_through_a_finished_match(
    game: str, driver: Any, live_server: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    match_id = ranked_match(game)
    url = f"{live_server.url}/matches/{match_id}/"
    driver.get(url)
    wait_for(lambda: position(driver)[1] > 0, 20)
    at, total = position(driver)
    assert at == 1
    data = json.loads(driver.find_element(By.ID, "replay-data").get_attribute("textContent"))
    assert total == data["total"] == len(data["frames"])

    # Buttons, keys and the scrubber move one player.
    driver.find_element(By.CSS_SELECTOR, "[data-next]").click()
    assert position(driver)[0] == 2
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    assert position(driver)[0] == 1
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    assert position(driver) == (total, total)
    driver.find_element(By.CSS_SELECTOR, "[data-first]").click()
    assert position(driver)[0] == 1

    # Every frame, one key press at a time.
    assert driver.execute_script(WALK) == []
    assert position(driver) == (total, total)

    # Play runs to the end by itself (at 10x).
    driver.find_element(By.CSS_SELECTOR, "[data-first]").click()
    driver.find_element(By.CSS_SELECTOR, "[data-speed] option[value='10']").click()
    driver.find_element(By.CSS_SELECTOR, "[data-play]").click()
    wait_for(lambda: position(driver)[0] > 1, 10)

    # A link to a moment opens the player there.
    driver.find_element(By.CSS_SELECTOR, "[data-play]").click()  # pause
    middle = max(1, total // 2)
    driver.get(f"{url}#frame={middle}")
    driver.refresh()
    wait_for(lambda: position(driver) == (middle, total), 10)

    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        driver.find_element(By.ID, "viewer").screenshot(str(Path(SHOTS) / f"{game}.png"))
    # Nobody signed in here: no prints, errors or owner-only filter on the page.
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.HOME)
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#log tbody tr"), 10)
    assert not driver.find_elements(By.CSS_SELECTOR, "pre.stdout, pre.error, #only-mine")
    logs = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert logs == []


@pytest.mark.skipif("chess" not in available_game_ids(), reason="chess is not in this tree")
def test_the_chess_board_is_drawn_from_the_frames(driver: Any, live_server: Any) -> None:
    from selenium.webdriver.common.by import By

    match_id = ranked_match("chess")
    driver.get(f"{live_server.url}/matches/{match_id}/")
    wait_for(lambda: position(driver)[1] > 0, 20)
    squares = driver.find_elements(By.CSS_SELECTOR, ".chessboard .sq")
    assert len(squares) == 64
    assert squares[0].get_attribute("data-square") == "a8"  # white at the bottom
    assert squares[60].text == "♔"  # e1
    driver.find_element(By.CSS_SELECTOR, "[data-next]").click()
    assert len(driver.find_elements(By.CSS_SELECTOR, ".chessboard .sq.last")) == 2
    assert (
        driver.find_element(By.CSS_SELECTOR, "[data-downloads] a")
        .get_attribute("download")
        .endswith(".pgn")
    )

"""Watching a ranked match live in real Chromium, against a real worker: the page follows the
match without a reload while the player keeps what the person chose, and the finished match is
the same replay a fresh page shows. The watcher is signed out: the public view only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_part
from tests.e2e.browser import browser_available, driven, wait_for
from tests.e2e.conftest import Stack

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.slow]

#: Long enough to be watched for several polls (each poll is 2 s), short enough for the suite.
LIVE_GAME, LIVE_CONFIG = "poker", {"hands": 300}

CREATE = """
from django.db import transaction
from arena.workflows.dispatch import match_schedule as match_create
from arena.submissions.services import house_submission_ensure
with transaction.atomic():
    m = match_create(kind="ranked", submissions=[
        house_submission_ensure(game="{game}", bot="always-call"),
        house_submission_ensure(game="{game}", bot="hand-strength"),
    ])
    m.config = {config}
    m.save(update_fields=["config"])
print(m.pk)
"""


def position(driver: Any) -> tuple[int, int]:
    from selenium.webdriver.common.by import By

    at, total = driver.find_element(By.CSS_SELECTOR, "[data-position]").text.split("/")
    return int(at), int(total)


def test_a_live_ranked_match_can_be_watched_to_its_end(stack: Stack, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    require_part(browser_available(), "chromium and chromium-driver (apt-get install both)")
    out = stack.manage("shell", "-c", CREATE.format(game=LIVE_GAME, config=json.dumps(LIVE_CONFIG)))
    match_id = int(out.strip().splitlines()[-1])
    with driven(tmp_path) as driver:
        url = f"{stack.url}/matches/{match_id}/"
        driver.get(url)
        status = driver.find_element(By.ID, "match-status").text
        assert status in ("queued", "running"), f"the match was {status} before it was watched"

        # Frames arrive without a reload; the person steps back to the start and stays there.
        wait_for(lambda: position(driver)[1] >= 2, 120)
        driver.find_element(By.CSS_SELECTOR, "[data-first]").click()
        seen = position(driver)[1]

        def grew_while_running() -> bool:
            running = driver.find_element(By.ID, "match-status").text == "running"
            return running and position(driver)[1] > seen

        wait_for(grew_while_running, 60)
        assert position(driver)[0] == 1, "a live update must not move the player"
        driver.find_element(By.CSS_SELECTOR, "[data-next]").click()
        assert position(driver)[0] == 2, "the buttons work between live updates"
        driver.save_screenshot(str(tmp_path / "live-running.png"))

        # At the end the player follows the match to its last move.
        driver.find_element(By.CSS_SELECTOR, "[data-last]").click()
        wait_for(lambda: driver.find_element(By.ID, "match-status").text == "finished", 300)
        # The swap that said "finished" also carried the last frames; the player moves to them.
        wait_for(lambda: position(driver)[0] == position(driver)[1], 60)
        at, total = position(driver)
        assert at == total
        assert driver.find_element(By.CSS_SELECTOR, "#match-head").get_attribute("hx-trigger") in (
            None,
            "",
        ), "polling stops once the match is over"

        # Every frame still steps; then a fresh page shows the same replay.
        problems = driver.execute_script(
            """
            const p = window.arenaPlayer, bad = [];
            for (let i = 0; i < p.frames.length; i += 1) {
              p.show(i);
              if (!document.querySelector("[data-stage]").children.length) bad.push(i);
            }
            return bad;
            """
        )
        assert problems == []
        live_labels = driver.execute_script("return window.arenaPlayer.frames.map(f => f.label)")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#log tbody tr"), 20)
        # A spectator: no prints, errors or owner-only controls.
        assert not driver.find_elements(By.CSS_SELECTOR, "pre.stdout, pre.error, #only-mine")
        driver.get(url)
        fresh = driver.execute_script("return window.arenaPlayer.frames.map(f => f.label)")
        assert fresh == live_labels
        driver.save_screenshot(str(tmp_path / "live-finished.png"))

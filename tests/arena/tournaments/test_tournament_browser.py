"""The tournament pages in real headless Chromium, served by Django's live server: a new user
signs in and enters an agent; the public sees a running tournament without its results, then
the published standings, crosstable and games, and follows a game to its replay."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from arena.accounts.models import User
from arena.tournaments.models import Entry, Tournament, TournamentGame
from django.utils import timezone

from tests.arena.tournaments.test_tournaments import (
    accepted_agent,
    field,
    freeze_now,
    make_tournament,
    run_to_the_end,
)
from tests.e2e.browser import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_user_enters_a_tournament_in_the_browser(
    driver: Any, live_server: Any, make_user: Callable[..., User], starter_source: str
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    t = make_tournament(name="Browser cup")
    user = make_user("carol")
    accepted_agent(user, starter_source, name="carols-bot")
    driver.delete_all_cookies()
    driver.get(f"{live_server.url}/accounts/login/?next=/tournaments/")
    driver.find_element(By.NAME, "username").send_keys("carol")
    driver.find_element(By.NAME, "password").send_keys("pw-carol-123")
    driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    wait_for(lambda: driver.current_url.endswith("/tournaments/"), 20)
    driver.find_element(By.LINK_TEXT, "Browser cup").click()
    Select(driver.find_element(By.NAME, "agent")).select_by_visible_text("carols-bot")
    driver.find_element(By.ID, "enter").click()
    mine = wait_for(lambda: driver.find_element(By.ID, "my-entry").text, 20)
    assert "carols-bot" in mine
    assert "is entered" in driver.find_element(By.CSS_SELECTOR, ".flash").text
    assert Entry.objects.filter(tournament=t, owner=user).exists()


def test_the_public_sees_results_only_once_published_and_follows_a_replay(
    driver: Any, live_server: Any, make_user: Callable[..., User], starter_source: str
) -> None:
    from selenium.webdriver.common.by import By

    t, entries = field(make_user, starter_source, 6)
    freeze_now(t)
    run_to_the_end(t, random.Random(11))
    driver.delete_all_cookies()
    url = f"{live_server.url}/tournaments/{t.pk}/"
    driver.get(url)
    assert driver.find_element(By.ID, "tournament-status").text == "finished"
    assert "results are published" in driver.find_element(By.ID, "not-published").text
    assert not driver.find_elements(By.ID, "standings")

    Tournament.objects.filter(pk=t.pk).update(publish_at=timezone.now())
    from arena.tournaments.scheduler import tournaments_tick

    tournaments_tick()
    driver.get(url)
    assert driver.find_element(By.ID, "tournament-status").text == "published"
    rows = driver.find_elements(By.CSS_SELECTOR, "#standings tbody tr")
    assert len(rows) == 6
    ranks = [int(r.find_elements(By.TAG_NAME, "td")[0].text) for r in rows]
    assert ranks == list(range(1, 7))
    cross = driver.find_elements(By.CSS_SELECTOR, "#crosstable tbody tr")
    assert len(cross) == 6
    games = driver.find_elements(By.CSS_SELECTOR, "#games tbody tr")
    assert len(games) == TournamentGame.objects.filter(pairing__tournament=t).count() == 30
    link = driver.find_element(By.CSS_SELECTOR, "#games a[href*='/matches/']")
    href = link.get_attribute("href")
    link.click()
    wait_for(lambda: driver.current_url == href, 20)
    assert driver.find_element(By.ID, "match-status").text == "finished"

"""Challenges, history and head-to-head, and notifications in real headless Chromium, as a new
user meets them: matches run in the process sandbox (eager Celery) behind Django's live server."""

from __future__ import annotations

from typing import Any

import pytest
from arena.accounts.models import User
from arena.notifications.services import notify
from arena.submissions.models import Agent, Submission

from games.core import get_game_spec
from tests.arena.ratings.test_ladder import make_entries, play
from tests.e2e.browser import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def signed_out(driver: Any) -> None:
    driver.delete_all_cookies()


def sign_in(driver: Any, base: str, username: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(f"{base}/accounts/login/")
    driver.find_element(By.NAME, "username").send_keys(username)
    driver.find_element(By.NAME, "password").send_keys(f"pw-{username}-123")
    driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    wait_for(lambda: "/accounts/login/" not in driver.current_url, 20)


def accepted_agent(owner: User, name: str) -> Submission:
    spec = get_game_spec("simple-card")
    return Submission.objects.create(
        agent=Agent.objects.create(owner=owner, game="simple-card", name=name),
        version=1,
        source=spec.starter_source(),
        sha256="0" * 64,
        game_version=spec.version,
        status=Submission.Status.ACCEPTED,
    )


def test_a_new_user_challenges_an_agent_from_its_page(driver: Any, live_server: Any) -> None:
    from selenium.webdriver.common.by import By

    alice = User.objects.create_user(username="alice", password="pw-alice-123")
    bob = User.objects.create_user(username="bob", password="pw-bob-123")
    theirs = accepted_agent(alice, "alicebot")
    accepted_agent(bob, "bobbot")
    sign_in(driver, live_server.url, "bob")
    driver.get(f"{live_server.url}/submissions/agents/{theirs.agent_id}/")
    driver.find_element(By.ID, "challenge").click()
    wait_for(lambda: driver.find_element(By.ID, "match-status").text == "finished", 120)
    assert "Challenge sent" in driver.find_element(By.CSS_SELECTOR, ".flash").text
    # His own seat's prints are on the page; the log's "my seat only" filter is his.
    prints = wait_for(
        lambda: [e.text for e in driver.find_elements(By.CSS_SELECTOR, "pre.stdout")], 30
    )
    assert prints and driver.find_elements(By.ID, "only-mine")
    # Alice sees it in her agent's history and was told.
    driver.delete_all_cookies()
    sign_in(driver, live_server.url, "alice")
    assert driver.find_element(By.ID, "unread-count").text == "1"
    driver.get(f"{live_server.url}/agents/{theirs.agent_id}/matches/")
    kinds = [
        r.get_attribute("data-kind")
        for r in driver.find_elements(By.CSS_SELECTOR, "#history tbody tr")
    ]
    assert kinds == ["challenge"]


def test_history_filters_and_the_pair_page(driver: Any, live_server: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    a, b, c = make_entries("simple-card", 3)
    for i in range(12):
        play(a, b if i % 2 else c, ("win", "loss", "draw")[i % 3])
    driver.get(f"{live_server.url}/submissions/agents/{a.agent_id}/")
    driver.find_element(By.ID, "all-matches").click()
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#history tbody tr[data-kind]"), 20)
    Select(driver.find_element(By.NAME, "result")).select_by_value("win")
    Select(driver.find_element(By.NAME, "kind")).select_by_value("ranked")
    driver.find_element(By.CSS_SELECTOR, "#history-filters button[type=submit]").click()
    wait_for(lambda: "result=win" in driver.current_url, 20)
    outcomes = [
        r.get_attribute("data-outcome")
        for r in driver.find_elements(By.CSS_SELECTOR, "#history tbody tr[data-kind]")
    ]
    assert outcomes == ["win"] * 4
    driver.find_element(By.ID, "h2h-link").click()
    driver.find_element(
        By.CSS_SELECTOR, f'#head-to-head tr[data-opponent="{b.agent_id}"] a'
    ).click()
    record = wait_for(lambda: driver.find_element(By.ID, "pair-record").text, 20)
    assert record.startswith("6 matches: 2 won, 2 drawn, 2 lost")


def test_the_inbox_counts_unread_and_settings_save(driver: Any, live_server: Any) -> None:
    from selenium.webdriver.common.by import By

    alice = User.objects.create_user(username="alice", password="pw-alice-123")
    notify(user=alice, kind="agent_paused", subject="crashy v1 was taken off the ladder")
    sign_in(driver, live_server.url, "alice")
    assert driver.find_element(By.ID, "unread-count").text == "1"
    driver.find_element(By.ID, "inbox-link").click()
    assert "crashy v1 was taken off the ladder" in driver.find_element(By.ID, "inbox").text
    driver.find_element(By.ID, "mark-all-read").click()
    wait_for(lambda: not driver.find_elements(By.ID, "unread-count"), 20)
    driver.get(f"{live_server.url}/notifications/settings/")
    box = driver.find_element(By.NAME, "agent_paused:email")
    assert box.is_selected()
    box.click()
    driver.find_element(By.ID, "save-preferences").click()
    wait_for(lambda: "saved" in driver.find_element(By.CSS_SELECTOR, ".flash").text, 20)
    assert not driver.find_element(By.NAME, "agent_paused:email").is_selected()

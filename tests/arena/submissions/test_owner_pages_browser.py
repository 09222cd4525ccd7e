"""What a person sees, in real headless Chromium against Django's live server: the turn log
fills in while a training match runs, its pager is readable, long prints are folded keeping
their start and their end, and every page fits a phone's 390 px without sideways scrolling.
Matches run in the process sandbox; the page is served by Django's live server."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from arena.catalog.services import demo_data_load
from arena.matches.models import Match
from arena.matches.services import training_create
from arena.submissions.services import (
    house_submission_ensure,
    submission_create,
    submission_set_status,
)
from arena.workflows.dispatch import match_schedule
from arena.workflows.matches import match_run
from django.db import transaction
from django.test import Client

from tests.e2e.browser import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

#: Screenshots for a person to look at, when ARENA_UX_SHOTS names a folder.
SHOTS = os.environ.get("ARENA_UX_SHOTS")

#: A simple-card agent that thinks a while each turn and prints a long block whose first and
#: last lines are the ones a person needs (the last line before a failure is at the end).
SLOW_PRINTER = """
import time


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        time.sleep(0.5)
        print("FIRST LINE of turn", state["turn"])
        for i in range(60):
            print("middle line", i, "x" * 60)
        print("LAST LINE before returning", max(state["hand"]))
        return {"type": "play_card", "card": max(state["hand"])}
"""


def sign_in(driver: Any, live_server: Any, user: Any) -> None:
    client = Client()
    client.force_login(user)
    driver.get(f"{live_server.url}/accounts/login/")
    driver.delete_all_cookies()
    driver.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value})


def accepted(user: Any, source: str, name: str = "printer") -> Any:
    with transaction.atomic():
        submission = submission_create(owner=user, source=source, name=name)
    return submission_set_status(submission=submission, status="accepted")


def training(user: Any, submission: Any, config: dict[str, Any]) -> Match:
    with transaction.atomic():
        match = training_create(user=user, submission_id=submission.pk, opponent="house:random")
        match.config = config
        match.save(update_fields=["config"])
    return match


def ranked_match(game: str, config: dict[str, Any] | None = None) -> int:
    bots = [house_submission_ensure(game=game, bot=b) for b in _bots(game)[:2]]
    with transaction.atomic():
        match = match_schedule(kind="ranked", submissions=bots)
        match.config = config or {}
        match.save(update_fields=["config"])
    match_run(match_id=match.pk)
    return int(match.pk)


def _bots(game: str) -> list[str]:
    from games.core import get_game_spec

    return sorted(get_game_spec(game).bots)


def test_the_owner_reads_the_turn_log_while_the_training_match_runs(
    driver: Any, live_server: Any, make_user: Any
) -> None:
    from selenium.webdriver.common.by import By

    user = make_user("watcher")
    submission = accepted(user, SLOW_PRINTER)
    match = training(user, submission, {"rounds": 8, "hand_size": 8})
    sign_in(driver, live_server, user)
    driver.get(f"{live_server.url}/matches/{match.pk}/")
    wait_for(lambda: driver.find_elements(By.ID, "log"), 20)

    seen: list[tuple[str, int, str]] = []  # (status shown, rows shown, the count's words)
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            try:
                rows = driver.find_elements(By.CSS_SELECTOR, "#log tbody tr[data-seq]")
                status = driver.find_element(By.ID, "match-status").text
                count = driver.find_element(By.ID, "log-count").text
                seen.append((status, len(rows), count))
            except Exception:  # the page is mid-swap (htmx): look again
                pass
            time.sleep(0.3)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        match_run(match_id=match.pk)  # plays in this thread while the browser watches
        wait_for(lambda: driver.find_element(By.ID, "match-status").text == "finished", 30)
    finally:
        stop.set()
        watcher.join(10)
    live_counts = sorted({rows for status, rows, _ in seen if status == "running" and rows})
    assert len(live_counts) >= 2, f"the turn log did not fill in while the match ran: {seen}"
    assert any("so far" in words for status, _, words in seen if status == "running"), seen

    # Long prints are folded: first and last lines in view, the middle behind an expander.
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".print-fold"), 20)
    fold = driver.find_elements(By.CSS_SELECTOR, ".print-fold")[0]
    shown = fold.text
    assert "FIRST LINE of turn" in shown and "LAST LINE before returning" in shown
    assert "more lines" in shown
    height = driver.execute_script("return document.scrollingElement.scrollHeight")
    assert height < 12_000, f"the page is {height} px tall with folded prints"
    full = fold.find_element(By.CSS_SELECTOR, ".print-all pre")
    assert not full.is_displayed()
    fold.find_element(By.CSS_SELECTOR, ".print-all summary").click()
    assert full.is_displayed() and "middle line 30" in full.text
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        driver.find_element(By.ID, "turn-log").screenshot(str(Path(SHOTS) / "training-log.png"))
    # The state sent is given room when opened, not squeezed into its column.
    opener = driver.find_elements(By.CSS_SELECTOR, "td.state-cell details summary")[2]
    opener.click()
    state = wait_for(lambda: opener.find_element(By.XPATH, "..").find_element(By.TAG_NAME, "pre"))
    width = driver.execute_script("return arguments[0].getBoundingClientRect().width", state)
    assert width >= 300, f"the state sent is {width} px wide"


#: The contrast ratio of an element's text against the first opaque background behind it.
CONTRAST = """
function rgb(text) { return text.match(/[\\d.]+/g).map(Number); }
function lum(c) {
  const [r, g, b] = c.slice(0, 3).map((v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const el = arguments[0];
const fg = rgb(getComputedStyle(el).color);
let node = el, bg = null;
while (node && node.nodeType === 1) {
  const c = rgb(getComputedStyle(node).backgroundColor);
  if (c.length < 4 || c[3] > 0.5) { bg = c; break; }
  node = node.parentElement;
}
bg = bg || [255, 255, 255];
const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
return (a + 0.05) / (b + 0.05);
"""


def test_the_turn_log_pager_is_readable(driver: Any, live_server: Any) -> None:
    from selenium.webdriver.common.by import By

    match_id = ranked_match("poker", {"hands": 40})  # well over one page of 100 calls
    driver.get(f"{live_server.url}/matches/{match_id}/")
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".log-nav button"), 20)
    buttons = driver.find_elements(By.CSS_SELECTOR, ".log-nav button")
    labels = {b.text: b for b in buttons}
    assert {"later →", "last page", "refresh"} <= set(labels), list(labels)
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        driver.find_element(By.CSS_SELECTOR, ".log-nav").screenshot(
            str(Path(SHOTS) / "turn-log-pager.png")
        )
    for label, button in labels.items():
        ratio = driver.execute_script(CONTRAST, button)
        assert ratio >= 4.5, f"{label!r} has a contrast of {ratio:.2f}:1 (4.5:1 is the minimum)"


PHONE_WIDTH_PX = 390

#: The outermost elements that reach past the screen's right edge (to say what overflows).
OVERFLOWING = """
const width = document.documentElement.clientWidth, found = [];
for (const node of document.querySelectorAll("body *")) {
  const right = node.getBoundingClientRect().right;
  if (right > width + 1 && !(node.parentElement && found.includes(node.parentElement))) {
    let inside = false;  // inside a box that scrolls by itself: not the page's overflow
    for (let p = node.parentElement; p; p = p.parentElement) {
      if (["auto", "scroll", "hidden"].includes(getComputedStyle(p).overflowX)) inside = true;
    }
    if (!inside) found.push(node);
  }
}
return found.slice(0, 5).map(
  (n) => `${n.tagName}.${n.className} ${n.getBoundingClientRect().right}`);
"""


def at_phone_width(driver: Any) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": PHONE_WIDTH_PX, "height": 844, "deviceScaleFactor": 1, "mobile": True},
    )


def at_desktop_width(driver: Any) -> None:
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_every_page_fits_a_phone(driver: Any, live_server: Any, make_user: Any) -> None:
    from selenium.webdriver.common.by import By

    demo_data_load()
    chess = ranked_match("chess")
    poker = ranked_match("poker", {"hands": 6})
    agent_id = Match.objects.get(pk=chess).participants.first().submission.agent_id
    user = make_user("phone")
    pages = {
        "home": "/",
        "chess game": "/games/chess/",
        "poker game": "/games/poker/",
        "agent": f"/submissions/agents/{agent_id}/",
        "chess match": f"/matches/{chess}/",
        "poker match": f"/matches/{poker}/",
        "sign-in": "/accounts/login/",
        "sign-up": "/accounts/signup/",
    }
    at_phone_width(driver)
    try:
        driver.delete_all_cookies()
        widths = {}
        for name, path in pages.items():
            driver.get(f"{live_server.url}{path}")
            if "match" in name:
                wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#log tbody tr"), 20)
            width = driver.execute_script("return document.scrollingElement.scrollWidth")
            widths[name] = (width, driver.execute_script(OVERFLOWING))
            if SHOTS:
                Path(SHOTS).mkdir(parents=True, exist_ok=True)
                driver.save_screenshot(str(Path(SHOTS) / f"phone-{name.replace(' ', '-')}.png"))
        sign_in(driver, live_server, user)
        signed_in_pages = {
            "upload": "/submissions/upload/",
            "my agents": "/submissions/mine/",
            "account": "/accounts/",
            "token": "/accounts/token/",
        }
        for name, path in signed_in_pages.items():
            driver.get(f"{live_server.url}{path}")
            if SHOTS:
                driver.save_screenshot(str(Path(SHOTS) / f"phone-{name.replace(' ', '-')}.png"))
            width = driver.execute_script("return document.scrollingElement.scrollWidth")
            widths[name] = (width, driver.execute_script(OVERFLOWING))
        too_wide = {name: w for name, w in widths.items() if w[0] > PHONE_WIDTH_PX}
        assert not too_wide, f"wider than {PHONE_WIDTH_PX} px: {too_wide}"
        # The chess board is whole: its h-file is on the screen.
        driver.get(f"{live_server.url}/matches/{chess}/")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".chessboard .sq"), 20)
        h1 = driver.find_element(By.CSS_SELECTOR, ".chessboard [data-square='h1']")
        right = driver.execute_script("return arguments[0].getBoundingClientRect().right", h1)
        assert right <= PHONE_WIDTH_PX, f"the h-file ends at {right} px"
    finally:
        at_desktop_width(driver)
    if SHOTS:  # the same pages at a desktop's width, for a person to compare
        driver.set_window_size(1280, 1000)
        for name in ("chess game", "chess match", "poker match"):
            driver.get(f"{live_server.url}{pages[name]}")
            if "match" in name:
                wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#log tbody tr"), 20)
            driver.save_screenshot(str(Path(SHOTS) / f"desktop-{name.replace(' ', '-')}.png"))


def test_a_rejections_reason_is_prominent_and_its_traceback_shown_once(
    driver: Any, live_server: Any, make_user: Any
) -> None:
    from arena.workflows.submissions import submission_upload
    from selenium.webdriver.common.by import By

    from tests.arena.conftest import BAD_AGENT_SOURCE

    user = make_user("rejected")
    submission = submission_upload(owner=user, source=BAD_AGENT_SOURCE, name="bad")
    wait_for(lambda: type(submission).objects.get(pk=submission.pk).status == "rejected", 60)
    sign_in(driver, live_server, user)
    driver.get(f"{live_server.url}/submissions/{submission.pk}/")
    verdict = driver.find_element(By.ID, "status-detail")
    size = float(
        driver.execute_script("return getComputedStyle(arguments[0]).fontSize", verdict)[:-2]
    )
    base = float(driver.execute_script("return getComputedStyle(document.body).fontSize")[:-2])
    assert size >= base, f"the reason is {size} px against the page's {base} px"
    assert driver.execute_script(CONTRAST, verdict) >= 7, "the reason is not in strong contrast"
    errors = driver.find_elements(By.CSS_SELECTOR, ".log-errors pre.error")
    assert len(errors) == 1 and errors[0].text.endswith("my bug on purpose")
    assert "4 times in a row" in driver.find_element(By.CSS_SELECTOR, ".log-errors").text
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(SHOTS) / "desktop-rejected.png"))


#: A simple-card agent that prints one long line each turn (what training is for).
PRINTER = """
class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        print("my print on turn", state["turn"], "-" * 120)
        return {"type": "play_card", "card": max(state["hand"])}
"""

#: Where an element sits on the screen.
RECT = "const r = arguments[0].getBoundingClientRect(); return [r.left, r.right, r.top];"


def test_at_phone_width_each_call_of_the_turn_log_is_read_without_scrolling(
    driver: Any, live_server: Any, make_user: Any
) -> None:
    from selenium.webdriver.common.by import By

    user = make_user("phone-trainer")
    match = training(user, accepted(user, PRINTER), {"rounds": 3, "hand_size": 3})
    match_run(match_id=match.pk)
    sign_in(driver, live_server, user)
    cells = "#log tbody tr.mine td.log-prints pre.stdout"
    at_phone_width(driver)
    try:
        driver.get(f"{live_server.url}/matches/{match.pk}/")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, cells), 20)
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            driver.find_element(By.ID, "turn-log").screenshot(
                str(Path(SHOTS) / "phone-turn-log.png")
            )
        row = driver.find_element(By.CSS_SELECTOR, cells).find_element(By.XPATH, "../..")
        for part in ("td.log-prints pre.stdout", "td.log-returned code", "td.log-ms"):
            left, right, _ = driver.execute_script(RECT, row.find_element(By.CSS_SELECTOR, part))
            assert left >= 0 and right <= PHONE_WIDTH_PX, f"{part} spans {left}-{right} px"
        assert "my print on turn" in row.find_element(By.CSS_SELECTOR, "td.log-prints").text
        unit = driver.execute_script(
            "return getComputedStyle(arguments[0], '::after').content",
            row.find_element(By.CSS_SELECTOR, "td.log-ms"),
        )
        assert unit == '" ms"', unit  # without its column's heading, the time says its unit
        width = driver.execute_script("return document.scrollingElement.scrollWidth")
        assert width <= PHONE_WIDTH_PX, f"the page is {width} px wide"
    finally:
        at_desktop_width(driver)
    # A desktop keeps the table: the prints are a column beside the time.
    driver.set_window_size(1280, 1000)
    driver.get(f"{live_server.url}/matches/{match.pk}/")
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, cells), 20)
    assert driver.find_element(By.CSS_SELECTOR, "#log thead").is_displayed()
    row = driver.find_element(By.CSS_SELECTOR, cells).find_element(By.XPATH, "../..")
    ms_left, _, ms_top = driver.execute_script(RECT, row.find_element(By.CSS_SELECTOR, "td.log-ms"))
    prints_left, prints_right, prints_top = driver.execute_script(
        RECT, row.find_element(By.CSS_SELECTOR, "td.log-prints")
    )
    assert prints_left > ms_left and abs(prints_top - ms_top) < 2 and prints_right <= 1280
    if SHOTS:
        driver.find_element(By.ID, "turn-log").screenshot(str(Path(SHOTS) / "desktop-turn-log.png"))

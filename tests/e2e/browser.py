"""The browser journey of the mission, driven in headless Chromium (Debian's chromium and
chromium-driver through Selenium, which is pointed at /usr/bin/chromedriver so Selenium
Manager never downloads anything). Used by test_browser_journey and by hand against
``make run``: ``python tests/e2e/browser.py http://127.0.0.1:8000 /tmp/shots``."""

from __future__ import annotations

import shutil
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.conftest import described

CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM = "/usr/bin/chromium"


def browser_available() -> bool:
    """Debian's chromium and chromium-driver are installed."""
    return Path(CHROMEDRIVER).exists() and (
        Path(CHROMIUM).exists() or bool(shutil.which("chromium"))
    )


def make_driver() -> Any:
    """A headless Chromium WebDriver that never downloads a driver or a browser."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,1000",
    ):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


@contextmanager
def driven(failures: Path) -> Iterator[Any]:
    """A driver from ``make_driver``, quit afterwards; when the block fails, its screenshot and
    page source are kept first, as ``failure.png`` and ``failure.html`` in ``failures``."""
    driver = make_driver()
    try:
        yield driver
    except Exception:
        driver.save_screenshot(str(failures / "failure.png"))
        (failures / "failure.html").write_text(driver.page_source)
        raise
    finally:
        driver.quit()


def wait_for(check: Callable[[], Any], timeout_s: float = 120.0) -> Any:
    """Poll ``check`` until it returns something true; when ``timeout_s`` passes, fail saying
    what was awaited (the check's own source line) and the last error."""
    deadline = time.monotonic() + timeout_s
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = check()
        except Exception as exc:  # the page is mid-swap (htmx): try again
            last_error = exc
            value = None
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(
        f"gave up after {timeout_s} s waiting for {described(check)}; last error: {last_error}"
    )


def journey(base_url: str, shots: Path, game: str, starter_source: str) -> dict[str, Any]:
    """Sign up, upload the starter, see it accepted, train and read prints, activate, and see
    ranked matches on the leaderboard. Returns what it saw; screenshots go to ``shots``."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    shots.mkdir(parents=True, exist_ok=True)
    agent_file = shots / "starter_agent.py"
    agent_file.write_text(starter_source)
    username = f"user{uuid.uuid4().hex[:8]}"
    seen: dict[str, Any] = {}
    with driven(shots) as driver:
        driver.get(f"{base_url}/accounts/signup/")
        driver.find_element(By.NAME, "username").send_keys(username)
        driver.find_element(By.NAME, "password1").send_keys("a-long-pass-987")
        driver.find_element(By.NAME, "password2").send_keys("a-long-pass-987")
        driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        wait_for(lambda: "/submissions/upload/" in driver.current_url, 20)

        driver.find_element(By.NAME, "file").send_keys(str(agent_file))
        driver.find_element(By.NAME, "name").send_keys("starter")
        driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        wait_for(lambda: driver.find_element(By.ID, "start-training"))  # shown once accepted
        assert driver.find_element(By.ID, "submission-status").text == "accepted"
        seen["submission_url"] = driver.current_url
        driver.save_screenshot(str(shots / "1-accepted.png"))

        opponent = Select(driver.find_element(By.NAME, "opponent"))
        opponent.select_by_index(0)
        driver.find_element(By.ID, "start-training").click()
        wait_for(lambda: driver.find_element(By.ID, "match-status").text == "finished")
        # The turn log reloads itself when the match ends (htmx, no page reload).
        seen["prints"] = wait_for(
            lambda: [e.text for e in driver.find_elements(By.CSS_SELECTOR, "pre.stdout")], 20
        )
        seen["training_url"] = driver.current_url
        driver.save_screenshot(str(shots / "2-training.png"))

        driver.get(seen["submission_url"])
        driver.find_element(By.ID, "activate").click()
        seen["flash"] = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, ".flash").text, 20)

        def on_board() -> str | None:
            driver.get(f"{base_url}/games/{game}/?q={username}")
            # Columns differ by the game's ranking measure (mean payoff adds one): find Games.
            header = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "table.board th")]
            games_at = header.index("Games")
            for row in driver.find_elements(By.CSS_SELECTOR, "table.board tbody tr"):
                cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
                if (
                    len(cells) > games_at
                    and cells[1].startswith("starter v1")
                    and cells[2] == username
                    and int(cells[games_at]) >= 1
                ):
                    return " | ".join(cells)
            return None

        seen["board_row"] = wait_for(on_board, 120)
        driver.save_screenshot(str(shots / "3-leaderboard.png"))
        driver.find_element(By.LINK_TEXT, "starter v1").click()
        seen["agent_page"] = driver.find_element(By.TAG_NAME, "main").text
        driver.save_screenshot(str(shots / "4-agent.png"))
        ranked = driver.find_elements(By.CSS_SELECTOR, "#agent-matches a[href*='/matches/']")
        if ranked:
            ranked[0].click()
            seen["ranked_match"] = driver.find_element(By.TAG_NAME, "main").text
            driver.save_screenshot(str(shots / "5-ranked-match.png"))
    return seen


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[2]
    sys.path[:0] = [str(root), str(root / "platform")]
    from games.core import get_game_spec

    game_id = sys.argv[3] if len(sys.argv) > 3 else "split-or-steal"
    result = journey(
        sys.argv[1], Path(sys.argv[2]), game_id, get_game_spec(game_id).starter_source()
    )
    for key, value in result.items():
        print(f"{key}: {value}")

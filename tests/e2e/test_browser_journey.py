"""The mission's journey in a real browser (headless Chromium) against a real worker."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.core import available_game_ids, get_game_spec
from tests.conftest import require_part
from tests.e2e.browser import browser_available, journey
from tests.e2e.conftest import Stack

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

GAME = "split-or-steal" if "split-or-steal" in available_game_ids() else "simple-card"


def test_sign_up_upload_train_activate_and_see_the_leaderboard(
    stack: Stack, tmp_path: Path
) -> None:
    require_part(browser_available(), "chromium and chromium-driver (apt-get install both)")
    seen = journey(stack.url, tmp_path / "shots", GAME, get_game_spec(GAME).starter_source())
    assert seen["prints"], "the training match page shows the agent's prints"
    assert "ladder" in seen["flash"]
    assert "Versions" in seen["agent_page"]
    assert (tmp_path / "shots" / "3-leaderboard.png").stat().st_size > 0

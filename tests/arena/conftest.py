"""Fixtures for the platform's tests: eager Celery (the e2e tests use a real worker), users,
sources, and a helper that runs on-commit callbacks the way a real commit would."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from games.core import get_game_spec


@pytest.fixture(autouse=True)
def eager_celery(settings: Any, tmp_path: Any) -> Iterator[None]:
    """Run tasks in-process with the process sandbox (allowed explicitly: DEBUG is off)."""
    from arena.celery_app import app
    from arena.matches import sandboxing

    # Unit tests use the process backend for speed; tests/e2e run the docker one when present.
    settings.ARENA_SANDBOX_BACKEND = "process"
    settings.ARENA_ALLOW_PROCESS_SANDBOX = True
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast tests
    sandboxing.sandbox_backend.cache_clear()
    # With the CELERY_ namespace, the keys are the prefixed upper-case ones.
    app.conf.update(CELERY_TASK_ALWAYS_EAGER=True, CELERY_TASK_EAGER_PROPAGATES=True)
    yield
    app.conf.update(CELERY_TASK_ALWAYS_EAGER=False)
    sandboxing.sandbox_backend.cache_clear()


@pytest.fixture
def make_user(db: None) -> Callable[..., Any]:
    """A user factory: ``make_user("alice")`` (password ``pw-<name>-123``)."""
    from arena.accounts.models import User

    def make(username: str = "alice") -> Any:
        return User.objects.create_user(username=username, password=f"pw-{username}-123")

    return make


@pytest.fixture
def starter_source() -> str:
    """simple-card's starter agent (prints every turn)."""
    return get_game_spec("simple-card").starter_source()


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Callable[[Callable[[], Any]], Any]:
    """Run ``fn`` and then its on-commit callbacks (enqueued tasks), as a real commit would."""

    def run(fn: Callable[[], Any]) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return fn()

    return run


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    """A headless chromium for the browser tests of one module (skipped locally without one)."""
    from tests.conftest import require_part
    from tests.e2e.browser import browser_available, make_driver

    require_part(browser_available(), "chromium and chromium-driver (apt-get install both)")
    chrome = make_driver()
    try:
        yield chrome
    finally:
        chrome.quit()


def house_match(game: str, *bots: str) -> Any:
    """A ranked match between house bots of ``game``, stored and never sent (a test writes its
    events itself)."""
    from arena.matches.services import match_create
    from arena.submissions.services import house_submission_ensure

    return match_create(
        kind="ranked", submissions=[house_submission_ensure(game=game, bot=b) for b in bots]
    )


def stored_call(match: Any, seq: int, method: str, *, seat: int = 0, **data: Any) -> Any:
    """One call of a running match's log as the worker stores it (round 1)."""
    from arena.matches.models import MatchEvent

    return MatchEvent.objects.create(
        match=match,
        seq=seq,
        seat=seat,
        data={"seq": seq, "seat": seat, "round": 1, "method": method, **data},
    )


BAD_AGENT_SOURCE = """
class Agent:
    GAME = "simple-card"

    def on_turn(self, round_state):
        print("about to fail")
        raise RuntimeError("my bug on purpose")
"""


@pytest.fixture
def scripted_judges(monkeypatch: Any) -> None:
    """Judged games' matches judged by each game's scripted judge (no model, no cost): for tests
    of what a match shows, not of how a model judges (those: tests/arena/llm/test_judges*.py)."""
    from arena.matches import play

    from games.core.registry import is_judged, offline_judge

    monkeypatch.setattr(
        play,
        "_judge_of",
        lambda match: offline_judge(match.game) if is_judged(match.game) else None,
    )

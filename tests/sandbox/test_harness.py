"""The harness stays in step with ``games.core.agent`` (it cannot import it)."""

from __future__ import annotations

from games.core import agent
from sandbox import harness


def test_stdout_caps_match_games_core() -> None:
    assert harness.STDOUT_CAP_PER_CALL_BYTES == agent.STDOUT_CAP_PER_CALL_BYTES
    assert harness.STDOUT_CAP_PER_MATCH_BYTES == agent.STDOUT_CAP_PER_MATCH_BYTES
    assert harness.STDOUT_CUT_MARK == agent.STDOUT_CUT_MARK


def test_lifecycle_methods_match_games_core() -> None:
    assert harness.LIFECYCLE_METHODS == agent.LIFECYCLE_METHODS

"""Nuclear War replays: every argument, the president's questions, its decision and reason."""

from __future__ import annotations

from games.core.persuasion import present_persuasion
from games.core.presenter import Replay, ReplayInput


def present(match: ReplayInput) -> Replay:
    """The shared persuasion replay, with the president as the judge."""
    return present_persuasion(match, "president")

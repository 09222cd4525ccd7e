"""NIL Recruitment replays: every pitch, the athlete's questions, its verdict and reason."""

from __future__ import annotations

from games.core.persuasion import present_persuasion
from games.core.presenter import Replay, ReplayInput


def present(match: ReplayInput) -> Replay:
    """The shared persuasion replay, with the athlete as the judge."""
    return present_persuasion(match, "athlete")

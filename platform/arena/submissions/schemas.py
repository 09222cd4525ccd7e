"""The API's shape of a submission, shared by the routers that answer with one.

``submissions/api.py`` (uploads, activation) and ``llm/api.py`` (a model entrant is a
submission) both answer with it; the one class keeps the OpenAPI document to one schema.
"""

from __future__ import annotations

from typing import Any, Literal

from ninja import Schema
from pydantic import ConfigDict


class LadderWaitOut(Schema):
    state: Literal[
        "inactive",
        "paused",
        "playing",
        "queued",
        "next-pass",
        "rematch-cooldown",
        "opponents-busy",
        "no-opponent",
    ]
    text: str
    match: int | None
    until: str | None


class SubmissionRatingOut(Schema):
    """A version's ladder rating and its 95 % interval (``rating_low`` to ``rating_high``)."""

    rating: float
    rating_low: float
    rating_high: float
    games: int
    wins: int
    losses: int
    draws: int
    #: Where the game ranks by payoff against the field: the mean and its 95 % interval.
    mean_payoff: float | None
    payoff_low: float | None
    payoff_high: float | None


class SubmissionOut(Schema):
    model_config = ConfigDict(extra="allow")

    id: int
    agent: str
    agent_id: int
    game: str
    version: int
    status: Literal["pending", "accepted", "rejected"]
    detail: str
    active: bool
    sha256: str
    errors: list[Any]
    validation_match: int | None
    #: Its ladder rating; null before its first rated game.
    rating: SubmissionRatingOut | None = None
    #: Why it is (not) playing a ranked match now (GET /submissions/{id} only).
    ladder: LadderWaitOut | None = None

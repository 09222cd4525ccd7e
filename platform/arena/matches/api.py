"""The API's match endpoints: start a training match, read a match and its per-call log."""

from __future__ import annotations

import json
from typing import Any, Literal

from django.http import HttpRequest, HttpResponse
from ninja import Router, Schema, Status
from pydantic import ConfigDict

from arena.api_base import ERRORS, Id, Opponent, PathId, caller, optional_auth, user_of
from arena.matches import selectors as match_selectors
from arena.workflows.matches import training_request

router = Router()


class TrainingIn(Schema):
    submission: Id
    #: ``house:<bot>`` or the id of another of your accepted submissions of the same game.
    opponent: Opponent | Id
    timed: bool = True


class TrainingOut(Schema):
    match: int
    status: str


@router.post(
    "/training",
    response={201: TrainingOut, **ERRORS},
    summary="Start a training match",
    operation_id="arena_api_training",
)
def training_create(request: HttpRequest, body: TrainingIn) -> Any:
    """An unrated match against a house bot or your own submission (throttled per hour)."""
    match = training_request(
        user=user_of(request),
        submission_id=body.submission,
        opponent=str(body.opponent),
        timed=body.timed,
    )
    return Status(201, {"match": match.pk, "status": match.status})


class ParticipantOut(Schema):
    model_config = ConfigDict(extra="allow")

    seat: int
    submission: int | None = None
    agent_id: int | None = None
    agent: str | None = None
    owner: str | None = None
    outcome: Literal["win", "loss", "draw"] | None = None
    reason: str | None = None
    #: Why the seat's match ended as it did; others than the owner read a neutral sentence.
    detail: str | None = None
    score: float | None = None
    rating_before: float | None = None
    rating_after: float | None = None


class MatchOut(Schema):
    model_config = ConfigDict(extra="allow")

    id: int
    status: Literal["queued", "running", "finished", "error"]
    #: ``validation``, ``training``, ``ranked``, ``challenge``, ``tournament`` (and kinds added
    #: later).
    kind: str
    game: str
    game_version: int | None = None
    timed: bool | None = None
    seed: int | None = None
    summary: str | None = None
    duration_s: float | None = None
    error: str | None = None
    #: Staff only: the platform failure's exception and traceback.
    error_trace: str | None = None
    winner_seat: int | None = None
    participants: list[ParticipantOut]
    rounds: Any = None
    stats: Any = None


@router.get(
    "/matches/{match_id}",
    auth=optional_auth,
    response={200: MatchOut, **ERRORS},
    exclude_unset=True,
    summary="A match",
    operation_id="arena_api_match_detail",
)
def match_get(request: HttpRequest, match_id: PathId) -> Any:
    """Ranked matches are public, others owner-only; others see each seat's public view."""
    match = match_selectors.match_get_visible(match_id=match_id, user=caller(request))
    return match_selectors.match_as_dict(match, caller(request))


@router.get(
    "/matches/{match_id}/log",
    auth=optional_auth,
    response={**ERRORS},
    openapi_extra={
        "responses": {
            "200": {
                "description": "one JSON object a line, one line per call to an agent",
                "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
            }
        }
    },
    summary="A match's per-call log",
    operation_id="arena_api_match_log",
)
def match_log_get(request: HttpRequest, match_id: PathId) -> HttpResponse:
    """JSON lines; prints and errors only for the caller's own seats."""
    user = caller(request)
    match = match_selectors.match_get_visible(match_id=match_id, user=user)
    lines = "".join(json.dumps(e) + "\n" for e in match_selectors.match_log(match, user))
    return HttpResponse(lines, content_type="application/x-ndjson")

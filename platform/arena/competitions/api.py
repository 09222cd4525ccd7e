"""The API's competition endpoints: challenges, an agent's history and its head-to-head."""

from __future__ import annotations

import datetime
from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Query, Router, Schema, Status
from pydantic import ConfigDict, Field

from arena.api_base import ERRORS, MAX_ID, Id, PathId, caller, optional_auth, user_of
from arena.competitions.selectors import HistoryFilters, head_to_head, history_page
from arena.competitions.services import challenge_policy_set
from arena.submissions import selectors as submission_selectors
from arena.workflows.competitions import challenge_request

router = Router()


class ChallengeIn(Schema):
    #: One of your accepted submissions.
    submission: Id
    #: The agent challenged (someone else's, same game).
    agent: Id


class ChallengeOut(Schema):
    match: int
    status: str
    #: False when it waits for one of your challenges in flight to end.
    sent: bool


@router.post(
    "/challenges",
    response={201: ChallengeOut, **ERRORS},
    summary="Challenge an agent",
    operation_id="arena_api_challenge_view",
)
def challenge_create(request: HttpRequest, body: ChallengeIn) -> Any:
    """An unrated match of your submission against another user's agent (the version it plays:
    its active one, else its newest accepted one). Throttled per hour (429 + Retry-After)."""
    match = challenge_request(
        user=user_of(request), submission_id=body.submission, agent_id=body.agent
    )
    match.refresh_from_db(fields=["status", "enqueued"])
    return Status(
        201, {"match": match.pk, "status": match.status, "sent": match.enqueued is not None}
    )


class ChallengeSettingsIn(Schema):
    accepts: bool = True
    min_rating: Annotated[float, Field(ge=-10_000, le=10_000)] | None = None


class ChallengeSettingsOut(Schema):
    agent: int
    accepts: bool
    min_rating: float | None


@router.put(
    "/agents/{agent_id}/challenge-settings",
    response={200: ChallengeSettingsOut, **ERRORS},
    summary="Whether your agent accepts challenges",
    operation_id="arena_api_challenge_settings_view",
)
def challenge_settings_set(
    request: HttpRequest, agent_id: PathId, body: ChallengeSettingsIn
) -> Any:
    """Owner only: opt out of challenges, or accept them only from agents rated at least
    ``min_rating``."""
    agent = submission_selectors.agent_get(agent_id=agent_id)
    policy = challenge_policy_set(
        agent=agent, user=user_of(request), accepts=body.accepts, min_rating=body.min_rating
    )
    return {"agent": agent.pk, "accepts": policy.accepts, "min_rating": policy.min_rating}


class HistoryOpponent(Schema):
    seat: int
    agent_id: int
    agent: str
    owner: str
    version: int
    submission: int
    outcome: str | None
    reason: str | None
    score: float | None
    rating_before: float | None
    rating_after: float | None


class HistoryRow(Schema):
    model_config = ConfigDict(extra="allow")

    match: int
    kind: str
    status: str
    game: str
    created: str
    finished: str | None
    seat: int
    version: int
    submission: int
    outcome: str | None
    reason: str | None
    score: float | None
    rating_before: float | None
    rating_after: float | None
    opponents: list[HistoryOpponent]
    #: Why the match ended as it did for this seat: only when the agent is yours.
    detail: str | None = None


class HistoryPageOut(Schema):
    agent: int
    matches: list[HistoryRow]
    #: Pass as ``before`` for the next (older) page; null on the last page.
    next_before: int | None


@router.get(
    "/matches",
    auth=optional_auth,
    response={200: HistoryPageOut, **ERRORS},
    exclude_unset=True,
    summary="An agent's matches, newest first (cursor pagination)",
    operation_id="arena_api_matches_list",
)
def history_list(
    request: HttpRequest,
    agent: Annotated[int, Query(ge=1, le=MAX_ID, description="the agent whose matches")],
    opponent: Annotated[int | None, Query(ge=1, le=MAX_ID, description="agent id")] = None,
    kind: Annotated[str, Query(max_length=32)] = "",
    result: Annotated[str, Query(max_length=8, description="win, loss or draw")] = "",
    since: Annotated[datetime.date | None, Query(description="YYYY-MM-DD")] = None,
    until: Annotated[datetime.date | None, Query(description="YYYY-MM-DD, inclusive")] = None,
    before: Annotated[int | None, Query(ge=1, le=MAX_ID, description="a match id")] = None,
    per_page: Annotated[int, Query(ge=1, le=100)] = 25,
) -> Any:
    """The matches of ``agent`` you may see (others' training is private; challenges show to
    the owners of their agents), with public facts about the other seats."""
    the_agent = submission_selectors.agent_get(agent_id=agent)
    page = history_page(
        agent=the_agent,
        viewer=caller(request),
        filters=HistoryFilters(
            kind=kind,
            opponent=opponent,
            result=result,
            since=since,
            until=until,
            before=before,
            limit=per_page,
        ),
    )
    return {"agent": the_agent.pk, "matches": page.rows, "next_before": page.next_before}


class HeadToHeadRow(Schema):
    opponent_id: int
    opponent: str
    owner: str
    played: int
    wins: int
    draws: int
    losses: int
    #: This agent's mean payoff (score) per match against that opponent, and the opponent's.
    mean_payoff: float | None
    opponent_mean_payoff: float | None
    last_match: int
    last_met: str | None


class HeadToHeadOut(Schema):
    agent: int
    game: str
    rows: list[HeadToHeadRow]


@router.get(
    "/agents/{agent_id}/head-to-head",
    auth=optional_auth,
    response={200: HeadToHeadOut, **ERRORS},
    summary="An agent's record against each opponent",
    operation_id="arena_api_head_to_head_view",
)
def head_to_head_get(request: HttpRequest, agent_id: PathId) -> Any:
    """Per opponent: played, wins, draws, losses, mean payoffs, last met (most played first);
    public matches only, unless the agent is yours."""
    the_agent = submission_selectors.agent_get(agent_id=agent_id)
    return {
        "agent": the_agent.pk,
        "game": the_agent.game,
        "rows": head_to_head(agent=the_agent, viewer=caller(request)),
    }

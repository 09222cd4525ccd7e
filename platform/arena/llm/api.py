"""The API of code agents' model calls: which models a version may call through its sandbox's
gateway and what it may spend (docs/llm-seats.md). Mounted under ``/api`` by ``arena.api``."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Path, Router, Schema
from pydantic import Field, StringConstraints

from arena.llm.models import AgentModelPolicy
from arena.llm.selectors import agent_model_policy_of, models_agents_may_call
from arena.llm.services import agent_model_policy_set
from arena.submissions.selectors import submission_get_owned

router = Router(tags=["models"])

ModelName = Annotated[str, StringConstraints(max_length=64, pattern=r"^[-a-zA-Z0-9_]+$")]
Usd = Annotated[Decimal, Field(ge=0, le=1000, max_digits=10, decimal_places=4)]
SubmissionId = Annotated[int, Path(ge=1, le=2**63 - 1)]


class AgentModelsIn(Schema):
    """The models the version may call (empty: none) and its budgets in USD."""

    models: Annotated[list[ModelName], Field(max_length=16)]
    match_budget_usd: Usd = Decimal(0)
    day_budget_usd: Usd = Decimal(0)


class AgentModelsOut(Schema):
    """What a version may call and spend, and every model agents may call on this site."""

    submission: int
    models: list[str]
    match_budget_usd: str
    day_budget_usd: str
    callable: list[str]


def _out(submission_id: int, policy: AgentModelPolicy | None) -> dict[str, Any]:
    return {
        "submission": submission_id,
        "models": sorted(m.name for m in policy.allowed_models.all()) if policy else [],
        "match_budget_usd": str(policy.match_budget_usd if policy else Decimal(0)),
        "day_budget_usd": str(policy.day_budget_usd if policy else Decimal(0)),
        "callable": [m.name for m in models_agents_may_call()],
    }


def _user(request: HttpRequest) -> Any:
    from arena.api import user_of  # the API module mounts this router: import it late

    return user_of(request)


@router.get(
    "/submissions/{submission_id}/models",
    response={200: AgentModelsOut},
    summary="The models your version may call",
)
def agent_models_get(request: HttpRequest, submission_id: SubmissionId) -> Any:
    """Owner only."""
    submission = submission_get_owned(submission_id=submission_id, user=_user(request))
    return _out(submission.pk, agent_model_policy_of(submission))


@router.put(
    "/submissions/{submission_id}/models",
    response={200: AgentModelsOut},
    summary="Choose the models your version may call, and its budgets",
)
def agent_models_set(request: HttpRequest, submission_id: SubmissionId, body: AgentModelsIn) -> Any:
    """Owner only; only models the operator lets agents call. Its calls are metered to you."""
    user = _user(request)
    submission = submission_get_owned(submission_id=submission_id, user=user)
    policy = agent_model_policy_set(
        submission=submission,
        user=user,
        model_names=list(body.models),
        match_budget_usd=body.match_budget_usd,
        day_budget_usd=body.day_budget_usd,
    )
    return _out(submission.pk, policy)

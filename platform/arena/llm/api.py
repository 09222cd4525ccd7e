"""The API's language-model endpoints: the models on offer, entering one, and which models a
code agent's version may call through its sandbox's gateway and what it may spend
(docs/llm-seats.md)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Path, Router, Schema, Status
from pydantic import Field, StringConstraints

from arena.api_base import ERRORS, AgentName, Storable, user_of
from arena.llm import selectors as llm_selectors
from arena.llm.models import AgentModelPolicy
from arena.llm.schemas import AgentModelsIn
from arena.llm.selectors import agent_model_policy_of, models_agents_may_call
from arena.llm.services import agent_model_policy_set
from arena.submissions import selectors as submission_selectors
from arena.submissions.schemas import SubmissionOut
from arena.submissions.selectors import submission_get_owned
from arena.workflows.llm import model_entrant_submit

router = Router()


class LanguageModelOut(Schema):
    name: str
    display_name: str
    model_id: str
    max_tokens_cap: int
    price_input_per_mtok_usd: float
    price_output_per_mtok_usd: float


@router.get(
    "/models",
    auth=None,
    response={200: list[LanguageModelOut], **ERRORS},
    summary="The language models you may enter",
    operation_id="arena_api_language_models",
)
def model_list(request: HttpRequest) -> Any:
    """Enabled models (the operator's registry; keys never leave the workers' environment)."""
    return [
        {
            "name": m.name,
            "display_name": m.display_name,
            "model_id": m.model_id,
            "max_tokens_cap": m.max_tokens_cap,
            "price_input_per_mtok_usd": float(m.price_input_per_mtok_usd),
            "price_output_per_mtok_usd": float(m.price_output_per_mtok_usd),
        }
        for m in llm_selectors.models_enabled()
    ]


class ModelEntrantIn(Schema):
    model: Annotated[str, StringConstraints(max_length=64), Storable]
    game: Annotated[str, StringConstraints(max_length=64), Storable]
    name: AgentName
    system_prompt_addition: Annotated[str, StringConstraints(max_length=20_000), Storable] = ""
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: Annotated[int, Field(ge=1, le=1_000_000)] | None = None
    json_output: bool = True


@router.post(
    "/model-entrants",
    response={201: SubmissionOut, **ERRORS},
    summary="Enter a language model (a new version, validated in self-play)",
    operation_id="arena_api_model_entrant_create_view",
)
def model_entrant_create(request: HttpRequest, body: ModelEntrantIn) -> Any:
    """A registered model + game + your settings; changing anything makes a new version."""
    fields = body.model_dump()
    submission = model_entrant_submit(
        owner=user_of(request), model_name=fields.pop("model"), **fields
    )
    return Status(201, submission_selectors.submission_as_dict(submission))


SubmissionId = Annotated[int, Path(ge=1, le=2**63 - 1)]


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


@router.get(
    "/submissions/{submission_id}/models",
    response={200: AgentModelsOut, **ERRORS},
    summary="The models your version may call",
)
def agent_models_get(request: HttpRequest, submission_id: SubmissionId) -> Any:
    """Owner only."""
    submission = submission_get_owned(submission_id=submission_id, user=user_of(request))
    return _out(submission.pk, agent_model_policy_of(submission))


@router.put(
    "/submissions/{submission_id}/models",
    response={200: AgentModelsOut, **ERRORS},
    summary="Choose the models your version may call, and its budgets",
)
def agent_models_set(request: HttpRequest, submission_id: SubmissionId, body: AgentModelsIn) -> Any:
    """Owner only; only models the operator lets agents call. Its calls are metered to you."""
    user = user_of(request)
    submission = submission_get_owned(submission_id=submission_id, user=user)
    policy = agent_model_policy_set(
        submission=submission,
        user=user,
        model_names=list(body.models),
        match_budget_usd=body.match_budget_usd,
        day_budget_usd=body.day_budget_usd,
    )
    return _out(submission.pk, policy)

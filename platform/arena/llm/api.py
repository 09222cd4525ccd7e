"""The API's language-model endpoints: the models on offer, and entering one."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Router, Schema, Status
from pydantic import Field, StringConstraints

from arena.api_base import ERRORS, AgentName, Storable, user_of
from arena.llm import selectors as llm_selectors
from arena.submissions import selectors as submission_selectors
from arena.submissions.schemas import SubmissionOut
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

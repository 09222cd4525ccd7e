"""The API's submission endpoints: upload an agent, read it, put it on or off its ladder."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Query, Router, Schema, Status
from ninja.errors import HttpError
from pydantic import model_validator

from arena.api_base import ERRORS, MAX_ID, AgentName, PathId, Source, known_game, user_of
from arena.competitions.selectors import ladder_state
from arena.errors import Refused
from arena.llm.schemas import ModelNames, Usd
from arena.submissions import selectors as submission_selectors
from arena.submissions import services as submission_services
from arena.submissions.checks import UPLOAD_READ_LIMIT_BYTES
from arena.submissions.schemas import SubmissionOut
from arena.workflows import submissions as submission_workflows

router = Router()


class _AgentModelsChoice(Schema):
    """What an upload may choose at once, as ``PUT /api/submissions/<id>/models`` would after:
    the models the version may call through its sandbox's gateway (an empty list: none;
    absent: the previous version's) and its budgets in USD, with the same checks."""

    models: ModelNames | None = None
    match_budget_usd: Usd = Decimal(0)
    day_budget_usd: Usd = Decimal(0)

    @model_validator(mode="after")
    def _budgets_go_with_models(self) -> _AgentModelsChoice:
        if self.models is None and (self.match_budget_usd or self.day_budget_usd):
            raise ValueError("give `models` with the budgets (an empty list for none)")
        return self


class SubmissionJsonIn(_AgentModelsChoice):
    """The agent's text as JSON."""

    source: Source
    name: AgentName | None = None


class SubmissionFormIn(_AgentModelsChoice):
    """The multipart form's fields besides ``file`` (``models`` repeated, one name a field)."""

    name: AgentName | None = None


_UPLOAD_BODY = {
    "required": True,
    "content": {
        "application/json": {"schema": SubmissionJsonIn.model_json_schema()},
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["file"],
                "properties": {
                    "file": {"type": "string", "format": "binary"},
                    "name": {"type": "string", "maxLength": 200},
                    "models": {
                        "type": "array",
                        "maxItems": 16,
                        "items": {
                            "type": "string",
                            "maxLength": 64,
                            "pattern": "^[-a-zA-Z0-9_]*$",
                        },
                        "description": "a model the agent may call (repeat the field for "
                        "several; one empty field for none; absent: the previous version's)",
                    },
                    "match_budget_usd": {"type": "string", "description": "with models (USD)"},
                    "day_budget_usd": {"type": "string", "description": "with models (USD)"},
                },
            }
        },
    },
}


@router.post(
    "/submissions",
    response={201: SubmissionOut, **ERRORS},
    openapi_extra={"requestBody": _UPLOAD_BODY},
    summary="Upload an agent",
    operation_id="arena_api_submissions",
)
def submission_create(request: HttpRequest) -> Any:
    """Multipart ``file`` (+ ``name``) or JSON ``{source, name}``; validated in self-play."""
    # With ``models`` (+ ``match_budget_usd``, ``day_budget_usd``) the version's models and
    # budgets are chosen in the same step, so its self-play already may call them.
    owner = user_of(request)
    if request.content_type == "application/json":
        try:
            raw = json.loads(request.body or b"null")
        except (ValueError, UnicodeDecodeError):
            raise HttpError(400, "Cannot parse request body") from None
        if not isinstance(raw, dict):
            raise Refused('send a JSON object {"source": "<the agent\'s text>", "name": "..."}')
        body = SubmissionJsonIn.model_validate(raw)
        submission = submission_workflows.submission_upload(
            owner=owner, source=body.source, name=body.name, **_models_of(body)
        )
    else:
        upload = request.FILES.get("file")
        if upload is None:
            raise Refused(
                'send the agent as a multipart field `file` (or JSON {"source": "..."}) '
                "with a Content-Type of multipart/form-data or application/json"
            )
        fields: dict[str, Any] = {
            key: request.POST[key]
            for key in ("name", "match_budget_usd", "day_budget_usd")
            if key in request.POST
        }
        if "models" in request.POST:
            fields["models"] = [m for m in request.POST.getlist("models") if m]
        form = SubmissionFormIn.model_validate(fields)
        submission = submission_workflows.submission_upload(
            owner=owner,
            data=upload.read(UPLOAD_READ_LIMIT_BYTES),
            name=form.name,
            filename=upload.name,
            size=upload.size,  # the real size, for the size error
            **_models_of(form),
        )
    return Status(201, submission_selectors.submission_as_dict(submission))


def _models_of(choice: _AgentModelsChoice) -> dict[str, Any]:
    """The upload's choice of models as the workflow takes it (nothing when it made none)."""
    if choice.models is None:
        return {}
    return {
        "agent_models": list(choice.models),
        "match_budget_usd": choice.match_budget_usd,
        "day_budget_usd": choice.day_budget_usd,
    }


class SubmissionPageOut(Schema):
    submissions: list[SubmissionOut]
    #: Pass as ``before`` for the next (older) page; null on the last page.
    next_before: int | None


@router.get(
    "/submissions",
    response={200: SubmissionPageOut, **ERRORS},
    summary="Your submissions, newest first (cursor pagination)",
    operation_id="arena_api_submissions_list",
)
def submissions_list(
    request: HttpRequest,
    game: Annotated[str, Query(max_length=100, description="only this game's")] = "",
    before: Annotated[int | None, Query(ge=1, le=MAX_ID, description="a submission id")] = None,
    per_page: Annotated[int, Query(ge=1, le=100)] = 25,
) -> Any:
    """Every version of every agent of yours (archived agents' too), with its validation's
    verdict; ``GET /api/submissions/{id}`` adds why it is or is not playing now."""
    rows, next_before = submission_selectors.submissions_page(
        user=user_of(request), game=known_game(game) if game else "", before=before, limit=per_page
    )
    return {"submissions": rows, "next_before": next_before}


@router.get(
    "/submissions/{submission_id}",
    response={200: SubmissionOut, **ERRORS},
    summary="One of your submissions",
    operation_id="arena_api_submission_detail",
)
def submission_get(request: HttpRequest, submission_id: PathId) -> Any:
    """Owner only: it carries the validation's verdict."""
    submission = submission_selectors.submission_get_owned(
        submission_id=submission_id, user=user_of(request)
    )
    return {
        **submission_selectors.submission_as_dict(submission),
        # An auto-paused one says why it left the ladder, not just "not active".
        "ladder": ladder_state(submission=submission).as_dict(),
    }


def _ladder_set(request: HttpRequest, submission_id: int, *, active: bool) -> dict[str, Any]:
    """Activate and deactivate differ only in the service they call: one body for both."""
    submission = submission_selectors.submission_get(submission_id=submission_id)
    user = user_of(request)
    if active:
        submission = submission_workflows.submission_activate(submission=submission, user=user)
    else:
        submission = submission_services.submission_deactivate(submission=submission, user=user)
    return submission_selectors.submission_as_dict(submission)


@router.post(
    "/submissions/{submission_id}/activate",
    response={200: SubmissionOut, **ERRORS},
    summary="Put a submission on its ladder",
    operation_id="arena_api_submission_activate_view",
)
def submission_activate(request: HttpRequest, submission_id: PathId) -> Any:
    """Ranked matches start within a minute; at most ``ARENA_ACTIVE_PER_GAME`` per game."""
    return _ladder_set(request, submission_id, active=True)


@router.post(
    "/submissions/{submission_id}/deactivate",
    response={200: SubmissionOut, **ERRORS},
    summary="Take a submission off its ladder",
    operation_id="arena_api_submission_deactivate_view",
)
def submission_deactivate(request: HttpRequest, submission_id: PathId) -> Any:
    """Its rating and history stay."""
    return _ladder_set(request, submission_id, active=False)

"""The JSON API: one ``NinjaAPI`` at ``/api/``, each app's endpoints in its own router.

Each app's endpoints and their schemas live in ``<app>/api.py`` beside its views; this module
mounts those routers, sets the token auth and turns every error into the refusal's shape. What
every router shares (id and text types, ``Error``, the caller) is in ``arena/api_base.py``.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError
from pydantic import ValidationError as PydanticValidationError

from arena.accounts.api import router as accounts_router
from arena.api_base import InvalidToken, TokenAuth, api_refusal
from arena.catalog.api import router as catalog_router
from arena.competitions.api import router as competitions_router
from arena.errors import RateLimited, Refused
from arena.llm.api import router as llm_router
from arena.matches.api import router as matches_router
from arena.notifications.api import router as notifications_router
from arena.ratings.api import router as ratings_router
from arena.submissions.api import router as submissions_router
from arena.tournaments.api import router as tournaments_router

#: The OpenAPI document's description (``/api/openapi.json``), which clients read.
DESCRIPTION = """The JSON API on django-ninja: thin adapters over services and selectors.

Each endpoint's request and response schemas sit beside it; the OpenAPI document at
``/api/openapi.json`` is generated from them. Auth is ``Authorization: Token <key>`` (reads also
accept the browser's session). Every refusal is a 4xx with ``{"error": "...", "details": [...]}``
saying why; a 429 also carries ``Retry-After``. What a response contains comes from the
selectors (``match_as_dict``, ``match_log``, ``leaderboard``, ``submission_as_dict``), which
decide what each caller may see.
"""

api = NinjaAPI(
    title="Agent Arena API",
    version="1",
    description=DESCRIPTION,
    auth=TokenAuth(),
    urls_namespace="api",
    openapi_url="/openapi.json",
    docs_url=None,
)
# The order the OpenAPI document lists them in (and the order they were written in before
# they moved beside their apps).
for router in (
    accounts_router,
    catalog_router,
    submissions_router,
    matches_router,
    llm_router,
    competitions_router,
    notifications_router,
    tournaments_router,
):
    api.add_router("", router)
# Added after the split: the boards with their intervals, across games, and a model's card.
api.add_router("/ratings/", ratings_router)


@api.exception_handler(Refused)
def _refused(request: HttpRequest, exc: Refused) -> HttpResponse:
    retry = exc.retry_after_s if isinstance(exc, RateLimited) else None
    return api_refusal(exc.message, exc.status, exc.details, retry_after_s=retry)


@api.exception_handler(InvalidToken)
def _invalid_token(request: HttpRequest, exc: InvalidToken) -> HttpResponse:
    return api_refusal(
        "invalid token: use the header `Authorization: Token <key>` "
        "with a key from POST /api/token",
        401,
    )


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return api_refusal(
        "authentication required: send `Authorization: Token <key>` (get one from POST /api/token)",
        401,
    )


def _validation_details(errors: list[dict[str, Any]] | list[Any]) -> list[dict[str, Any]]:
    details = []
    for error in errors:
        loc = [str(part) for part in error.get("loc", ()) if part not in ("body", "payload")]
        field = ".".join(loc) or "body"
        details.append(
            {"rule": "schema", "field": field, "line": None, "message": f"{field}: {error['msg']}"}
        )
    return details


def _schema_refusal(errors: list[dict[str, Any]] | list[Any]) -> HttpResponse:
    details = _validation_details(errors)
    summary = "; ".join(d["message"] for d in details[:3])
    return api_refusal(
        f"the request does not match the API's schema ({summary}); see /api/openapi.json",
        400,
        details,
    )


@api.exception_handler(ValidationError)
def _invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    return _schema_refusal(exc.errors)


@api.exception_handler(PydanticValidationError)
def _invalid_body(request: HttpRequest, exc: PydanticValidationError) -> HttpResponse:
    return _schema_refusal(list(exc.errors(include_url=False)))


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    message = str(exc)
    if exc.status_code == 400 and message.startswith("Cannot parse request body"):
        message = (
            "the body is not valid JSON: send a JSON object with the header "
            "`Content-Type: application/json`"
        )
    return api_refusal(message, exc.status_code)


def index(request: HttpRequest) -> HttpResponse:
    """``/api/`` itself: where the endpoints are described and how to sign a request (django-
    ninja's own root answers 404 with no docs page)."""
    return JsonResponse(
        {
            "api": api.title,
            "version": api.version,
            "openapi": request.build_absolute_uri("/api/openapi.json"),
            "auth": "send `Authorization: Token <key>`; your key is on the page /accounts/token/ "
            "or from `arena login`",
        }
    )


def not_found(request: HttpRequest) -> HttpResponse:
    """Any /api/ path no endpoint answers."""
    return api_refusal(
        f"no API endpoint at {request.path}: see /api/openapi.json for the endpoints", 404
    )

"""The JSON API (token auth): thin adapters over services and selectors.

Every refusal is a 4xx with ``{"error": "...", "details": [...]}`` saying why.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth import authenticate
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from arena.accounts.services import token_get_or_create, token_user
from arena.errors import NotFound, Refused
from arena.matches import selectors as match_selectors
from arena.openapi import OPENAPI
from arena.ratings.selectors import leaderboard
from arena.submissions import selectors as submission_selectors
from arena.submissions.services import submission_deactivate
from arena.workflows.matches import training_request
from arena.workflows.submissions import submission_activate, submission_upload
from games.core import UnknownGameError, available_game_ids, get_game_spec

View = Callable[..., HttpResponse]


def refusal(
    message: str, status: int, details: list[dict[str, object]] | None = None
) -> JsonResponse:
    """A 4xx answer with a body saying why."""
    return JsonResponse({"error": message, "details": details or []}, status=status)


def api_view(methods: list[str], *, auth: bool = True) -> Callable[[View], View]:
    """Token auth (``Authorization: Token <key>``), allowed methods, and refusals as JSON."""

    def decorate(view: View) -> View:
        @csrf_exempt
        @require_http_methods(methods)
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            request.api_user = None  # type: ignore[attr-defined]
            header = request.headers.get("Authorization", "")
            if header:
                scheme, _, key = header.partition(" ")
                user = token_user(key.strip()) if scheme.lower() == "token" else None
                if user is None:
                    return refusal(
                        "invalid token: use the header `Authorization: Token <key>` "
                        "with a key from POST /api/token",
                        401,
                    )
                request.api_user = user  # type: ignore[attr-defined]
            elif request.method == "GET" and request.user.is_authenticated:
                # Reads may use the browser's session (links from the pages); writes may not,
                # since these views are exempt from CSRF checks.
                request.api_user = request.user  # type: ignore[attr-defined]
            elif auth:
                return refusal(
                    "authentication required: send `Authorization: Token <key>` "
                    "(get one from POST /api/token)",
                    401,
                )
            try:
                return view(request, *args, **kwargs)
            except Refused as exc:
                return refusal(exc.message, exc.status, exc.details)

        return wrapper

    return decorate


def _json_body(request: HttpRequest) -> dict[str, Any]:
    try:
        body = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refused(f"the body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise Refused("the body must be a JSON object")
    return body


@api_view(["POST"], auth=False)
def token(request: HttpRequest) -> HttpResponse:
    """POST /api/token {username, password} → {token}."""
    body = _json_body(request) if request.content_type == "application/json" else request.POST
    user = authenticate(request, username=body.get("username"), password=body.get("password"))
    if user is None:
        return refusal("wrong username or password (or the account is disabled)", 401)
    return JsonResponse({"token": token_get_or_create(user=user).key})


@api_view(["GET"], auth=False)
def games(request: HttpRequest) -> HttpResponse:
    """GET /api/games."""
    items = []
    for game_id in available_game_ids():
        spec = get_game_spec(game_id)
        items.append(
            {
                "id": game_id,
                "title": spec.title,
                "version": spec.version,
                "house_bots": sorted(spec.bots),
            }
        )
    return JsonResponse(items, safe=False)


@api_view(["POST"])
def submissions(request: HttpRequest) -> HttpResponse:
    """POST /api/submissions: multipart ``file`` (+ ``name``) or JSON {source, name}."""
    if request.content_type == "application/json":
        body = _json_body(request)
        if not isinstance(body.get("source"), str):
            raise Refused("send the agent's text as the JSON string `source` (or upload `file`)")
        submission = submission_upload(
            owner=request.api_user,
            source=body["source"],
            name=body.get("name"),  # type: ignore[attr-defined]
        )
    else:
        upload = request.FILES.get("file")
        if upload is None:
            raise Refused('send the agent as a multipart field `file` (or JSON {"source"})')
        if upload.size and upload.size > 4 * 1024 * 1024:
            data = upload.read(4 * 1024 * 1024 + 1)  # enough to say it is too big
        else:
            data = upload.read()
        submission = submission_upload(
            owner=request.api_user,
            data=data,
            name=request.POST.get("name"),  # type: ignore[attr-defined]
            filename=upload.name,
        )
    return JsonResponse(submission_selectors.submission_as_dict(submission), status=201)


@api_view(["GET"])
def submission_detail(request: HttpRequest, submission_id: int) -> HttpResponse:
    """GET /api/submissions/{id} (owner only: it carries the validation log's verdict)."""
    submission = submission_selectors.submission_get_owned(
        submission_id=submission_id,
        user=request.api_user,  # type: ignore[attr-defined]
    )
    return JsonResponse(submission_selectors.submission_as_dict(submission))


@api_view(["POST"])
def submission_activate_view(request: HttpRequest, submission_id: int) -> HttpResponse:
    """POST /api/submissions/{id}/activate."""
    submission = submission_selectors.submission_get(submission_id=submission_id)
    submission = submission_activate(submission=submission, user=request.api_user)  # type: ignore[attr-defined]
    return JsonResponse(submission_selectors.submission_as_dict(submission))


@api_view(["POST"])
def submission_deactivate_view(request: HttpRequest, submission_id: int) -> HttpResponse:
    """POST /api/submissions/{id}/deactivate."""
    submission = submission_selectors.submission_get(submission_id=submission_id)
    submission = submission_deactivate(submission=submission, user=request.api_user)  # type: ignore[attr-defined]
    return JsonResponse(submission_selectors.submission_as_dict(submission))


@api_view(["POST"])
def training(request: HttpRequest) -> HttpResponse:
    """POST /api/training {submission, opponent, timed} → {match}."""
    body = _json_body(request)
    if "submission" not in body or "opponent" not in body:
        raise Refused('send {"submission": <id>, "opponent": "house:<bot>" or <id>}')
    try:
        submission_id = int(body["submission"])
    except (TypeError, ValueError):
        raise Refused("`submission` must be a submission id") from None
    match = training_request(
        user=request.api_user,  # type: ignore[attr-defined]
        submission_id=submission_id,
        opponent=str(body["opponent"]),
        timed=bool(body.get("timed", True)),
    )
    return JsonResponse({"match": match.pk, "status": match.status}, status=201)


@api_view(["GET"], auth=False)
def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    """GET /api/matches/{id}: ranked matches are public, others owner-only."""
    match = match_selectors.match_get_visible(match_id=match_id, user=request.api_user)  # type: ignore[attr-defined]
    return JsonResponse(match_selectors.match_as_dict(match, request.api_user))  # type: ignore[attr-defined]


@api_view(["GET"], auth=False)
def match_log(request: HttpRequest, match_id: int) -> HttpResponse:
    """GET /api/matches/{id}/log: JSON lines; prints only for the caller's own seats."""
    user = request.api_user  # type: ignore[attr-defined]
    match = match_selectors.match_get_visible(match_id=match_id, user=user)
    lines = "".join(json.dumps(e) + "\n" for e in match_selectors.match_log(match, user))
    return HttpResponse(lines, content_type="application/x-ndjson")


@api_view(["GET"], auth=False)
def leaderboard_view(request: HttpRequest, game: str) -> HttpResponse:
    """GET /api/leaderboard/{game}."""
    try:
        get_game_spec(game)
    except UnknownGameError as exc:
        raise NotFound(str(exc)) from None
    return JsonResponse(leaderboard(game=game), safe=False)


def openapi(request: HttpRequest) -> HttpResponse:
    """GET /api/openapi.json."""
    return JsonResponse(OPENAPI)

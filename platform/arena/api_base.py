"""What every app's API router shares: id and text types, the refusal's shape, and the caller.

The routers live beside their apps (``<app>/api.py``); ``arena/api.py`` mounts them on the one
``NinjaAPI`` with its auth and error handlers. This module imports no app's router, so each
router may import it.
"""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest, JsonResponse
from ninja import Path, Schema
from ninja.errors import AuthenticationError
from ninja.security import APIKeyHeader
from pydantic import AfterValidator, Field, StringConstraints

from arena.accounts.models import User
from arena.accounts.services import token_user
from arena.errors import NotFound
from arena.middleware import bad_character
from games.core import UnknownGameError, get_game_spec

# --- Shared types ---------------------------------------------------------------------------------

#: Database ids: positive and within a signed 64-bit column (bigger ones would overflow it).
MAX_ID = 2**63 - 1
Id = Annotated[int, Field(ge=1, le=MAX_ID)]


def _storable(text: str) -> str:
    found = bad_character(text)
    if found:
        raise ValueError(f"contains {found}, which cannot be stored; remove it")
    return text


#: Strings the database can store (no NUL, no lone surrogate), each with a length bound.
Storable = AfterValidator(_storable)
Username = Annotated[str, StringConstraints(max_length=150), Storable]
Password = Annotated[str, StringConstraints(max_length=4096), Storable]
AgentName = Annotated[str, StringConstraints(max_length=200), Storable]
#: The request cap bounds it; the upload checks then apply their rules (size, a NUL is "utf8").
Source = str
Opponent = Annotated[str, StringConstraints(max_length=200), Storable]
#: An id in a URL's path (``/submissions/{submission_id}``).
PathId = Annotated[int, Path(ge=1, le=MAX_ID)]


class Error(Schema):
    """Every refusal: what went wrong and what to do, with one detail per problem."""

    error: str
    details: list[dict[str, Any]] = []


ERRORS: dict[int, type[Error]] = {
    400: Error,
    401: Error,
    403: Error,
    404: Error,
    413: Error,
    429: Error,
}


def api_refusal(
    message: str,
    status: int,
    details: list[dict[str, Any]] | None = None,
    *,
    retry_after_s: int | None = None,
) -> JsonResponse:
    """A 4xx answer with a body saying why (and, for a 429, when to retry)."""
    response = JsonResponse({"error": message, "details": details or []}, status=status)
    if retry_after_s is not None:
        response["Retry-After"] = str(retry_after_s)
    return response


# --- Auth -----------------------------------------------------------------------------------------


class InvalidToken(Exception):
    """An ``Authorization`` header that names no active user's token."""


def _user_from_request(request: HttpRequest) -> User | None:
    """The token's user; on a GET without a header, the browser's session user; else None."""
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _, key = header.partition(" ")
        key = key.strip()
        if scheme.lower() != "token" or not key or len(key) > 128 or bad_character(key):
            raise InvalidToken
        user = token_user(key)
        if user is None:
            raise InvalidToken
        return user
    if request.method == "GET" and isinstance(request.user, User) and request.user.is_active:
        # Reads may use the browser's session (links from the pages); writes may not, since the
        # API is exempt from CSRF checks.
        return request.user
    return None


class TokenAuth(APIKeyHeader):
    """``Authorization: Token <key>``, the key from POST /api/token."""

    param_name = "Authorization"
    openapi_description = "`Token <key>`, the key from POST /api/token"

    def __call__(self, request: HttpRequest) -> User | None:
        return _user_from_request(request)

    def authenticate(self, request: HttpRequest, key: str | None) -> User | None:
        return _user_from_request(request)


class Anonymous:
    """Stands for a caller without credentials on the endpoints that allow one."""


ANONYMOUS = Anonymous()


def optional_auth(request: HttpRequest) -> User | Anonymous:
    """A token if one is sent (a wrong one is refused), else the anonymous caller."""
    return _user_from_request(request) or ANONYMOUS


def caller(request: HttpRequest) -> User | None:
    """The authenticated user of this request, or None for an anonymous caller."""
    auth = getattr(request, "auth", None)
    return auth if isinstance(auth, User) else None


def user_of(request: HttpRequest) -> User:
    """The authenticated user of an endpoint that requires one."""
    user = caller(request)
    if user is None:
        raise AuthenticationError()
    return user


def known_game(game: str) -> str:
    """``game`` when the platform has it, else ``NotFound`` naming the games it has (an API
    path or filter that names a game)."""
    try:
        get_game_spec(game)
    except UnknownGameError as exc:
        raise NotFound(str(exc)) from None
    return game

"""The API's account endpoints: a token for a username and password, and whose token it is."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from ninja import Router, Schema

from arena.accounts.services import token_get_or_create
from arena.api_base import ERRORS, Password, Username, api_refusal, user_of
from arena.throttles import login_lockout_response

router = Router()


class TokenIn(Schema):
    username: Username
    password: Password


class TokenOut(Schema):
    token: str


@router.post(
    "/token",
    auth=None,
    response={200: TokenOut, **ERRORS},
    summary="Get your API token",
    operation_id="arena_api_token",
)
def token_create(request: HttpRequest, body: TokenIn) -> Any:
    """Exchange a username and password for the API token (failed attempts are throttled)."""
    try:
        user = authenticate(request, username=body.username, password=body.password)
    except PermissionDenied:
        # django-axes: this address is locked out after too many failures.
        return login_lockout_response(request, None)
    if user is None:
        return api_refusal("wrong username or password (or the account is disabled)", 401)
    return {"token": token_get_or_create(user=user).key}


class MeOut(Schema):
    username: str


@router.get(
    "/me",
    response={200: MeOut, **ERRORS},
    summary="Who the token belongs to",
    operation_id="arena_api_me",
)
def account_get(request: HttpRequest) -> Any:
    """The account the token acts for (``arena login`` checks a token with it)."""
    return {"username": user_of(request).get_username()}

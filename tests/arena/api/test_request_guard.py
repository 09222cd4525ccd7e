"""Bad input is refused before a view or the database sees it: over-long bodies (413), deep
JSON, NUL characters and ids beyond 64 bits (400/404), each with a message saying what to do.
(The same classes against a live server on PostgreSQL: tests/e2e/test_web_fuzz.py.)"""

from __future__ import annotations

import json
from typing import Any

import pytest
from arena.middleware import json_depth
from django.test import Client

from tests.arena.api.test_api import token_client

pytestmark = pytest.mark.django_db


def test_json_depth_skips_brackets_inside_strings_and_stops_past_the_limit() -> None:
    assert json_depth(b'{"a": [1, {"b": "[[[[[[\\"[["}]}', 10) == 3
    assert json_depth(b"[" * 100_000 + b"]" * 100_000, 32) == 33


@pytest.mark.parametrize("path", ["/api/token", "/api/training", "/api/submissions"])
def test_json_nested_a_thousand_deep_is_refused_on_every_json_endpoint(
    make_user: Any, path: str
) -> None:
    api = token_client(make_user)
    response = api.post(path, "[" * 1000 + "]" * 1000, content_type="application/json")
    assert response.status_code == 400
    assert "nests more than 32 levels" in response.json()["error"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"username": "alice", "password": 123}, "password"),
        ({"username": ["alice"], "password": "x"}, "username"),
        ({"username": "a\x00b", "password": "x"}, "username"),
    ],
)
def test_token_refuses_non_strings_and_nul_with_the_field(
    make_user: Any, body: dict[str, Any], field: str
) -> None:
    make_user("alice")
    response = Client().post("/api/token", json.dumps(body), content_type="application/json")
    assert response.status_code == 400
    assert response.json()["details"][0]["field"] == field
    assert field in response.json()["error"]


@pytest.mark.parametrize("name", [123, ["x"], {"a": 1}, "bad\x00name"])
def test_upload_refuses_a_name_that_is_not_storable_text(
    make_user: Any, starter_source: str, name: Any
) -> None:
    api = token_client(make_user)
    body = json.dumps({"source": starter_source, "name": name})
    response = api.post("/api/submissions", body, content_type="application/json")
    assert response.status_code == 400 and response.json()["details"][0]["field"] == "name"


def test_a_body_over_the_request_cap_is_refused_before_it_is_read(settings: Any) -> None:
    settings.ARENA_REQUEST_MAX_BYTES = 1000
    response = Client().generic("POST", "/api/token", b"x" * 1001, content_type="application/json")
    assert response.status_code == 413
    assert "the limit is 1,000 bytes" in response.json()["error"]
    page = Client().generic(
        "POST", "/accounts/login/", b"x" * 1001, content_type="application/x-www-form-urlencoded"
    )
    assert page.status_code == 413 and "upload the source file alone" in page.content.decode()


def test_nul_in_a_form_field_or_the_query_is_refused_before_the_database(db: None) -> None:
    client = Client(enforce_csrf_checks=False)
    signup = client.post(
        "/accounts/signup/", {"username": "ev\x00il", "password1": "x", "password2": "x"}
    )
    assert signup.status_code == 400 and "NUL" in signup.content.decode()
    assert Client().get("/api/games", {"q": "\x00"}).status_code == 400


def test_ids_beyond_64_bits_are_not_found(make_user: Any) -> None:
    api = token_client(make_user)
    assert api.get("/api/matches/99999999999999999999").status_code in (400, 404)
    assert Client().get("/matches/99999999999999999999/").status_code == 404
    training = api.post(
        "/api/training",
        json.dumps({"submission": 1, "opponent": "9" * 30}),
        content_type="application/json",
    )
    assert training.status_code in (400, 404)


def test_unknown_api_paths_answer_in_the_error_shape(db: None) -> None:
    response = Client().get("/api/no/such/thing")
    assert response.status_code == 404 and "openapi.json" in response.json()["error"]


def test_deep_json_is_refused_whatever_content_type_it_claims(db: None) -> None:
    response = Client().generic("POST", "/api/token", "[" * 5000 + "]" * 5000, "text/plain")
    assert response.status_code == 400 and "nests more than" in response.json()["error"]


def test_a_nul_in_a_json_source_is_refused_by_the_upload_rule(make_user: Any) -> None:
    api = token_client(make_user)
    body = json.dumps({"source": 'class Agent:\n    GAME = "simple-card"\x00\n'})
    response = api.post("/api/submissions", body, content_type="application/json")
    assert response.status_code == 400
    assert (response.json()["details"][0]["rule"], response.json()["details"][0]["line"]) == (
        "utf8",
        2,
    )

"""No bad input gets a 500, against a live server (gunicorn, PostgreSQL).

* A fuzz test sends well over 1,000 malformed requests of every class refused to the web
  forms (signed in, with CSRF tokens) and to the API: wrong types in every JSON field, NUL bytes
  and lone surrogates in every text field, JSON nested 1,000 and 100,000 deep, sources whose
  parse exhausts CPython (deep unary chains, `not`s, long sums), undecodable bodies, bodies over
  the request cap, ids beyond the database's range, and path traversal under /static/.
* schemathesis fuzzes every endpoint of the generated OpenAPI document, positive and negative
  cases, and fails on any 5xx or any response that does not match the document.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from games.core import get_game_spec
from tests.e2e.web import Site, live_site

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.slow]

STARTER = get_game_spec("simple-card").starter_source()


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    # Limits high enough that the fuzz reaches the code behind them (they have their own tests).
    with live_site(
        ARENA_LOGIN_FAILURES="100000",
        ARENA_UPLOADS_PER_HOUR="100000",
        ARENA_VALIDATIONS_IN_FLIGHT="100000",
        ARENA_TRAINING_PER_HOUR="100000",
    ) as running:
        yield running


@pytest.fixture(scope="module")
def fuzzer(site: Site) -> dict[str, Any]:
    """A user with a token, an accepted submission and a finished training match to aim at."""
    token = site.user("fuzzer")
    ids = site.shell(
        "from arena.accounts.models import User; "
        "from arena.submissions.services import submission_create; "
        "from arena.submissions.models import Submission; "
        "from arena.workflows.matches import training_request as training_create; "
        "u = User.objects.get(username='fuzzer'); "
        f"s = submission_create(owner=u, source={STARTER!r}, name='fuzzbot'); "
        "Submission.objects.filter(pk=s.pk).update(status='accepted'); "
        "m = training_create(user=u, submission_id=s.pk, opponent='house:random'); "
        "print(s.pk, m.pk)"
    ).split()
    return {"token": token, "submission": int(ids[0]), "match": int(ids[1])}


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


#: Values for any field that expects something else (or the same type, but hostile).
BAD_VALUES: list[Any] = [
    None,
    0,
    -1,
    2**64,
    -(2**70),
    1.5,
    float("1e308"),
    True,
    [],
    {},
    ["a", 1],
    {"a": {"b": 1}},
    "",
    "\x00",
    "a\x00b",
    "\ud800",
    "\udfff tail",
    "x" * 100_000,
    "9" * 5000,
    "' OR 1=1 --",
    "../../etc/passwd",
    "%00",
    "\u202e\ufeff",
    "house:\x00",
    "house:" + "b" * 300,
]
#: Sources whose parse exhausts CPython (MemoryError, RecursionError) or nests too deeply.
PARSE_BOMBS = [
    "x = " + "-" * 50_000 + "1",
    "x = " + "not " * 30_000 + "1",
    "x = " + "+".join(["1"] * 50_000),
    "x = " + "(" * 5_000 + "1" + ")" * 5_000,
    "x = " + "+".join(["1"] * 2_000),
    'class Agent:\n    GAME = "simple-card"\n    def on_turn(self, s):\n        return '
    + "-" * 40_000
    + "1\n",
    "\x00class Agent: pass",
    "class Agent:\n" + "".join("    " * (i + 1) + "if x:\n" for i in range(200)) + "pass\n",
]
#: Bodies that are not the JSON they claim to be.
RAW_BODIES = [
    b"",
    b"{",
    b"null",
    b"[]",
    b"1e999999",
    b"\xff\xfe\x00\x00",
    b'{"a": "\\ud800"}',
    b'"\\u0000"',
    nested(1_000).encode(),
    nested(100_000).encode(),
    b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
    b'{"username": ' + nested(5_000).encode() + b', "password": "x"}',
]
CONTENT_TYPES = [
    "application/json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=xyz",
    "multipart/form-data",
]
API_JSON_FIELDS = {
    "/api/token": {"username": "fuzzer", "password": "pw-fuzzer-123"},
    "/api/submissions": {"source": STARTER, "name": "fuzzbot"},
    "/api/training": {"submission": 1, "opponent": "house:random", "timed": False},
}
PATHS = [
    "/static/%2e%2e/%2e%2e/etc/passwd",
    "/static/..%2f..%2fetc/passwd",
    "/static/%00",
    "/static/%2e%2e/manage.py",
    "/api/matches/99999999999999999999999",
    "/api/matches/-1",
    "/api/matches/0",
    "/api/matches/abc",
    "/api/matches/9223372036854775808/log",
    "/api/submissions/18446744073709551616",
    "/api/submissions/1%00",
    "/api/leaderboard/%00",
    "/api/leaderboard/" + "g" * 5000,
    "/api/leaderboard/%ff%fe",
    "/api/leaderboard/%ed%a0%80",
    "/api/nope",
    "/matches/99999999999999999999999/",
    "/matches/1/events/99999999999999999999999/",
    "/submissions/99999999999999999999999/",
    "/submissions/agents/99999999999999999999999/",
    "/games/%00/",
    "/games/" + "g" * 5000 + "/",
    "/?page=%00",
    "/?page=99999999999999999999999",
    "/matches/?q=%ed%a0%80",
    "/accounts/login/?next=%00",
    "/accounts/login/?next=//evil.example",
]


def _b(value: Any) -> bytes:
    """A form value as bytes: lone surrogates go out as the (invalid) UTF-8 they would be."""
    text = value if isinstance(value, str) else json.dumps(value)
    return text.encode("utf-8", "surrogatepass")


def _requests(site: Site, fuzzer: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(method, url, requests kwargs) for every malformed request."""
    api_auth = {"Authorization": f"Token {fuzzer['token']}"}
    for path, good in API_JSON_FIELDS.items():
        for headers in ({}, api_auth):
            for field in good:
                for value in BAD_VALUES:
                    body = dict(good, **{field: value})
                    yield (
                        "POST",
                        path,
                        {
                            "data": json.dumps(body),
                            "headers": {**headers, "Content-Type": "application/json"},
                        },
                    )
            for raw in RAW_BODIES:
                for content_type in CONTENT_TYPES:
                    yield (
                        "POST",
                        path,
                        {"data": raw, "headers": {**headers, "Content-Type": content_type}},
                    )
    for source in PARSE_BOMBS:
        yield "POST", "/api/submissions", {"json": {"source": source}, "headers": api_auth}
        yield (
            "POST",
            "/api/submissions",
            {
                "files": {"file": ("agent.py", source.encode("utf-8", "surrogatepass"))},
                "headers": api_auth,
            },
        )
    for value in BAD_VALUES:
        yield (
            "POST",
            "/api/submissions",
            {
                "files": {"file": ("a\x00.py", STARTER.encode())},
                "data": {"name": _b(value)},
                "headers": api_auth,
            },
        )
        header = b"Token " + _b(value)[:1000]
        if b"\x00" not in header and b"\n" not in header:  # http.client refuses to send those
            yield "GET", "/api/games", {"headers": {"Authorization": header}}
    for path in PATHS:
        for headers in ({}, api_auth):
            yield "GET", path, {"headers": headers}
    big = b"x" * (13 * 1024 * 1024)  # over ARENA_REQUEST_MAX_BYTES (12 MiB)
    yield "POST", "/api/submissions", {"files": {"file": ("agent.py", big)}, "headers": api_auth}
    yield "POST", "/api/token", {"data": big, "headers": {"Content-Type": "application/json"}}
    for method in ("PUT", "DELETE", "PATCH"):
        for path in API_JSON_FIELDS:
            yield method, path, {"headers": api_auth, "json": {}}


def _form_requests(
    fuzzer: dict[str, Any],
) -> Iterator[tuple[str, str, dict[str, Any], bool]]:
    """(method, path, requests kwargs, signed in) for the web forms."""
    sid = fuzzer["submission"]
    forms = {
        "/accounts/signup/": ({"username": "newbie", "password1": "pw", "password2": "pw"}, False),
        "/accounts/login/": ({"username": "fuzzer", "password": "pw-fuzzer-123"}, False),
        "/submissions/upload/": ({"name": "fuzzbot"}, True),
        f"/submissions/{sid}/train/": ({"opponent": "house:random", "timed": "on"}, True),
        f"/submissions/{sid}/ladder/": ({"action": "activate"}, True),
    }
    for path, (good, signed_in) in forms.items():
        for field in good:
            for value in BAD_VALUES:
                yield "POST", path, {"data": dict(good, **{field: _b(value)})}, signed_in
    uploads = [("bomb", source.encode("utf-8", "surrogatepass")) for source in PARSE_BOMBS]
    uploads += [
        ("bin", raw) for raw in (b"\x89PNG\r\n\x1a\n\x00", b"", b"\xff" * 1000, b"#" * (300 * 1024))
    ]
    for name, payload in uploads:
        yield (
            "POST",
            "/submissions/upload/",
            {
                "data": {"name": name},
                "files": {"file": ("agent.py", payload)},
            },
            True,
        )


def test_a_thousand_malformed_requests_get_no_server_error(
    site: Site, fuzzer: dict[str, Any]
) -> None:
    started = time.monotonic()
    statuses: Counter[int] = Counter()
    errors: list[str] = []
    for method, path, kwargs in _requests(site, fuzzer):
        try:
            response = requests.request(method, site.url + path, timeout=60, **kwargs)
        except requests.ConnectionError:
            # The server may close a connection after refusing a body it will not read (413).
            statuses[0] += 1
            continue
        statuses[response.status_code] += 1
        if response.status_code >= 500:
            errors.append(f"{method} {path} {str(kwargs)[:200]} -> {response.status_code}")
    browser = site.browser("fuzzer")
    anonymous = site.browser()
    for method, path, kwargs, signed_in in _form_requests(fuzzer):
        session = browser if signed_in else anonymous
        data = dict(kwargs.get("data", {}), csrfmiddlewaretoken=session.cookies["csrftoken"])
        response = session.request(method, site.url + path, timeout=60, **{**kwargs, "data": data})
        statuses[response.status_code] += 1
        if response.status_code >= 500:
            errors.append(f"{method} {path} {str(kwargs)[:200]} -> {response.status_code}")
        if path == "/accounts/login/" and "sessionid" in anonymous.cookies:
            anonymous = site.browser()  # stay anonymous for the next form
    total = sum(statuses.values())
    print(
        json.dumps(
            {
                "requests": total,
                "server_errors": len(errors),
                "statuses": dict(sorted(statuses.items())),
                "seconds": round(time.monotonic() - started, 1),
            }
        )
    )
    assert total >= 1000
    assert not errors, "\n".join(errors[:20]) + "\n" + site.log.read_text()[-5000:]
    assert statuses[0] <= 2  # only the two over-the-cap bodies may see their connection closed


@pytest.fixture(scope="module")
def api_schema(site: Site, fuzzer: dict[str, Any]) -> Any:
    schema = schemathesis.openapi.from_url(f"{site.url}/api/openapi.json")
    schema.config.generation.update(
        modes=[schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE],
        max_examples=25,
    )
    return schema


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_the_api_matches_its_openapi_document(case: Any, fuzzer: dict[str, Any]) -> None:
    case.call_and_validate(
        headers={"Authorization": f"Token {fuzzer['token']}"},
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
        ],
    )

"""Throttles against a live server (gunicorn, PostgreSQL): the hourly quotas hold under 50
concurrent requests, validations in flight are capped per user, failed sign-ins lock out, and
every refusal is a 429 with Retry-After and a message saying when to retry. Also what
PostgreSQL refuses (a NUL byte) is refused first, with a 400."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from games.core import get_game_spec
from tests.e2e.web import Site, live_site

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.slow]

LIMITS = {
    "ARENA_TRAINING_PER_HOUR": "30",
    "ARENA_UPLOADS_PER_HOUR": "8",
    "ARENA_VALIDATIONS_IN_FLIGHT": "5",
    "ARENA_LOGIN_FAILURES": "5",
    "ARENA_LOGIN_LOCKOUT_S": "600",
}
STARTER = get_game_spec("simple-card").starter_source()


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with live_site(**LIMITS) as running:
        yield running


def at_once(n: int, call: Callable[[], requests.Response]) -> list[requests.Response]:
    """``n`` requests sent together (threads released at once by the pool)."""
    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(lambda _: call(), range(n)))


def assert_throttled(response: requests.Response, *words: str) -> None:
    assert response.status_code == 429, response.text
    retry_after = int(response.headers["Retry-After"])
    assert retry_after > 0
    message = response.json()["error"]
    assert "try again in" in message.lower(), message
    for word in words:
        assert word in message, message


def test_fifty_concurrent_training_requests_get_exactly_the_hourly_quota(site: Site) -> None:
    training_quota_holds(site)


def test_the_training_quota_holds_on_sqlite_too() -> None:
    with live_site(database="sqlite", **LIMITS) as embedded:
        training_quota_holds(embedded)


def training_quota_holds(site: Site) -> None:
    """50 concurrent training requests of one user: exactly ARENA_TRAINING_PER_HOUR (30) pass."""
    token = site.user("trainer")
    sid = site.shell(
        "from arena.accounts.models import User; "
        "from arena.submissions.services import submission_create; "
        "from arena.submissions.models import Submission; "
        f"s = submission_create(owner=User.objects.get(username='trainer'), source={STARTER!r}); "
        "Submission.objects.filter(pk=s.pk).update(status='accepted'); print(s.pk)"
    ).strip()
    api = site.api(token)

    def train() -> requests.Response:
        return api.post(
            f"{site.url}/api/training",
            json={"submission": int(sid), "opponent": "house:random"},
            timeout=60,
        )

    responses = at_once(50, train)
    assert Counter(r.status_code for r in responses) == {201: 30, 429: 20}
    assert_throttled(next(r for r in responses if r.status_code == 429), "30 an hour")
    assert_throttled(train(), "training")
    count = site.shell(
        "from arena.matches.models import Match; "
        "print(Match.objects.filter(kind='training', requested_by__username='trainer').count())"
    )
    assert count.strip() == "30"


def test_uploads_are_capped_in_flight_and_per_hour_under_concurrency(site: Site) -> None:
    api = site.api(site.user("uploader"))

    def upload() -> requests.Response:
        return api.post(
            f"{site.url}/api/submissions", json={"source": STARTER, "name": "bot"}, timeout=60
        )

    # No worker runs: every validation stays queued, so the in-flight cap (5) binds first.
    first = at_once(50, upload)
    assert Counter(r.status_code for r in first) == {201: 5, 429: 45}
    assert_throttled(next(r for r in first if r.status_code == 429), "at once")
    # The validations finish: the hourly quota (8) leaves room for 3 more.
    site.shell(
        "from arena.matches.models import Match; "
        "Match.objects.filter(kind='validation').update(status='finished')"
    )
    # The first burst's pooled connections have idled past gunicorn's keep-alive while the
    # shell ran: a request sent on one as the server closes it gets no answer at all. Fresh ones.
    api.close()
    second = at_once(50, upload)
    assert Counter(r.status_code for r in second) == {201: 3, 429: 47}
    assert_throttled(next(r for r in second if r.status_code == 429), "8 an hour")
    # Validation runs in its own queue, apart from training and ranked matches.
    queues = site.shell(
        "from arena.matches.models import Match; from arena.workflows.dispatch import match_queue; "
        "print(sorted({match_queue(m) for m in Match.objects.all()}))"
    )
    assert "validation" in queues


def test_failed_sign_ins_lock_out_the_token_endpoint_and_the_login_form(site: Site) -> None:
    site.user("victim")
    anonymous = site.api()
    wrong = [
        anonymous.post(
            f"{site.url}/api/token", json={"username": "victim", "password": "guess"}, timeout=30
        )
        for _ in range(5)
    ]
    # The fifth failure (ARENA_LOGIN_FAILURES) locks the address out; the right password then
    # waits too.
    assert [r.status_code for r in wrong] == [401, 401, 401, 401, 429]
    locked = anonymous.post(
        f"{site.url}/api/token",
        json={"username": "victim", "password": "pw-victim-123"},
        timeout=30,
    )
    assert_throttled(locked, "sign-in")
    assert int(locked.headers["Retry-After"]) == 600
    browser = site.browser()
    form = browser.post(
        f"{site.url}/accounts/login/",
        data={
            "username": "victim",
            "password": "pw-victim-123",
            "csrfmiddlewaretoken": browser.cookies["csrftoken"],
        },
        timeout=30,
    )
    assert form.status_code == 429 and "try again in" in form.text
    assert int(form.headers["Retry-After"]) == 600
    site.shell("from axes.models import AccessAttempt; AccessAttempt.objects.all().delete()")


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/token", {"username": "a\x00b", "password": "x"}),
        ("/api/token", {"username": "ok", "password": "\x00"}),
        ("/api/token", {"username": "\ud800", "password": "x"}),
    ],
)
def test_nul_and_surrogates_in_api_text_are_refused_on_postgres(
    site: Site, path: str, body: dict[str, str]
) -> None:
    raw = json.dumps(body).encode()  # \u0000 and \ud800 escapes, valid JSON
    response = requests.post(
        f"{site.url}{path}", data=raw, headers={"Content-Type": "application/json"}, timeout=30
    )
    assert response.status_code == 400, response.text
    field = next(k for k, v in body.items() if v != "x" and v != "ok")
    assert response.json()["details"][0]["field"] == field


def test_nul_in_form_fields_and_urls_is_refused_on_postgres(site: Site) -> None:
    browser = site.browser()
    for path, data in [
        ("/accounts/signup/", {"username": "ev\x00il", "password1": "x", "password2": "x"}),
        ("/accounts/login/", {"username": "ev\x00il", "password": "x"}),
    ]:
        data["csrfmiddlewaretoken"] = browser.cookies["csrftoken"]
        response = browser.post(f"{site.url}{path}", data=data, timeout=30)
        assert response.status_code == 400 and "NUL" in response.text, response.text
    for url in ["/api/leaderboard/a%00b", "/matches/?q=%00", "/static/%2e%2e/%2e%2e/etc/passwd"]:
        assert site.api().get(f"{site.url}{url}", timeout=30).status_code < 500

"""Throttles in-process: each refusal is a 429 with Retry-After and a message saying when to
retry, on the API and on the pages; validations run in their own queue. (Atomicity under 50
concurrent requests, against gunicorn on PostgreSQL: tests/e2e/test_web_limits.py.)"""

from __future__ import annotations

import json
from typing import Any

import pytest
from arena.matches.models import Match
from arena.workflows.dispatch import match_queue
from django.test import Client

from tests.arena.api.test_api import token_client

pytestmark = pytest.mark.django_db


def upload(api: Client, source: str) -> Any:
    return api.post(
        "/api/submissions", json.dumps({"source": source}), content_type="application/json"
    )


def test_uploads_per_hour_answer_429_with_when_to_retry(
    settings: Any, make_user: Any, committed: Any, starter_source: str
) -> None:
    settings.ARENA_UPLOADS_PER_HOUR = 2
    api = token_client(make_user)
    assert [committed(lambda: upload(api, starter_source)).status_code for _ in range(2)] == [
        201,
        201,
    ]
    refused = upload(api, starter_source)
    assert refused.status_code == 429
    assert 3500 <= int(refused["Retry-After"]) <= 3600
    assert "the limit is 2 an hour" in refused.json()["error"]
    assert "Try again in 60 minutes" in refused.json()["error"]
    other = token_client(make_user, "bob")  # per user: bob is not affected
    assert committed(lambda: upload(other, starter_source)).status_code == 201


def test_validations_in_flight_are_capped_per_user(
    settings: Any, make_user: Any, starter_source: str
) -> None:
    settings.ARENA_VALIDATIONS_IN_FLIGHT = 1
    settings.ARENA_VALIDATION_RETRY_AFTER_S = 45
    api = token_client(make_user)
    assert upload(api, starter_source).status_code == 201  # not committed: stays queued
    refused = upload(api, starter_source)
    assert refused.status_code == 429 and refused["Retry-After"] == "45"
    assert "at once" in refused.json()["error"] and "45 seconds" in refused.json()["error"]
    Match.objects.filter(kind="validation").update(status="finished")
    assert upload(api, starter_source).status_code == 201


def test_the_upload_page_says_when_to_retry(
    settings: Any, make_user: Any, starter_source: str
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    settings.ARENA_UPLOADS_PER_HOUR = 0
    browser = Client()
    browser.force_login(make_user("carol"))
    page = browser.post(
        "/submissions/upload/",
        {"name": "x", "file": SimpleUploadedFile("agent.py", starter_source.encode())},
    )
    assert page.status_code == 429 and int(page["Retry-After"]) > 0
    assert "Try again in" in page.content.decode()


def test_training_per_hour_on_the_page_and_the_api(
    settings: Any, make_user: Any, committed: Any, starter_source: str
) -> None:
    settings.ARENA_TRAINING_PER_HOUR = 1
    api = token_client(make_user)
    sid = committed(lambda: upload(api, starter_source)).json()["id"]
    body = json.dumps({"submission": sid, "opponent": "house:random", "timed": False})
    assert api.post("/api/training", body, content_type="application/json").status_code == 201
    refused = api.post("/api/training", body, content_type="application/json")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "training matches" in refused.json()["error"]
    from arena.accounts.models import User

    browser = Client()
    browser.force_login(User.objects.get(username="alice"))
    page = browser.post(f"/submissions/{sid}/train/", {"opponent": "house:random"})
    assert page.status_code == 429 and "Try again in" in page.content.decode()


def test_failed_token_attempts_lock_the_address_out(settings: Any, make_user: Any) -> None:
    settings.AXES_FAILURE_LIMIT = 3
    make_user("alice")

    def attempt(password: str) -> Any:
        body = json.dumps({"username": "alice", "password": password})
        return Client().post("/api/token", body, content_type="application/json")

    assert [attempt("wrong").status_code for _ in range(3)] == [401, 401, 429]
    locked = attempt("pw-alice-123")
    assert locked.status_code == 429
    assert locked["Retry-After"] == str(settings.ARENA_LOGIN_LOCKOUT_S)
    assert "try again in" in locked.json()["error"]


def test_validation_has_its_own_queue(make_user: Any, starter_source: str) -> None:
    from django.conf import settings

    api = token_client(make_user)
    upload(api, starter_source)
    match = Match.objects.get(kind="validation")
    assert match_queue(match) == settings.ARENA_QUEUES["validation"]
    assert match_queue(match).startswith(f"{settings.ARENA_INSTANCE_ID}.")
    assert settings.ARENA_QUEUES["validation"] in settings.ARENA_WORKER_QUEUES
    assert settings.ARENA_QUEUES["matches"] in settings.ARENA_WORKER_QUEUES

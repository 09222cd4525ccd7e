"""Privacy against the live platform: ranked matches played by the real worker (the sandbox the
machine offers), read over HTTP from the real web server by an anonymous visitor and by another
plain user. Nobody but the owner reads an agent's exception text, traceback, source lines or
prints, or a poker hand's mucked hole cards, on any path (API, log download, pages)."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import pytest

from tests.arena.matches.test_privacy import SECRET_SOURCE, SECRETS
from tests.e2e.conftest import Stack

pytestmark = [pytest.mark.e2e, pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]


#: Creates alice (owner) and bob (another plain user), alice's two agents, and one ranked match
#: each, enqueued to the real worker on commit. Prints the match ids.
SEED = """
import json
from django.db import transaction
from arena.accounts.models import User
from arena.matches.models import Match
from arena.workflows.dispatch import match_schedule as match_create
from arena.submissions.models import Submission
from arena.submissions.services import house_submission_ensure, submission_create
from games.core import get_game_spec

alice = User.objects.create_user(username="alice", password="pw-alice-123")
User.objects.create_user(username="bob", password="pw-bob-123")
ids = {}
for key, game, source, bot, config in (
    ("secret", "simple-card", SOURCE, "random", {}),
    ("poker", "poker", get_game_spec("poker").starter_source(), "hand-strength", {"hands": 16}),
):
    with transaction.atomic():
        mine = submission_create(owner=alice, source=source, name=key)
        Submission.objects.filter(pk=mine.pk).update(status="accepted")
        # Accepted by hand: its validation is marked done so the worker skips it.
        Match.objects.filter(kind="validation", participants__submission=mine).update(
            status="error", error="skipped by the test"
        )
        house = house_submission_ensure(game=game, bot=bot)
        match = match_create(kind="ranked", submissions=[mine, house], seed=7)
        Match.objects.filter(pk=match.pk).update(config=config)
    ids[key] = match.pk
print(json.dumps(ids))
"""


def get(stack: Stack, path: str, token: str | None = None) -> str:
    request = urllib.request.Request(stack.url + path)  # noqa: S310 - our own loopback server
    if token:
        request.add_header("Authorization", f"Token {token}")
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
        assert response.status == 200, path
        return response.read().decode()


def token_of(stack: Stack, name: str) -> str:
    body = json.dumps({"username": name, "password": f"pw-{name}-123"}).encode()
    request = urllib.request.Request(  # noqa: S310
        stack.url + "/api/token",
        data=body,
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
        return str(json.loads(response.read())["token"])


def log_of(stack: Stack, match_id: int, token: str | None = None) -> list[dict[str, Any]]:
    text = get(stack, f"/api/matches/{match_id}/log", token)
    return [json.loads(line) for line in text.splitlines() if line]


def wait_finished(stack: Stack, match_id: int, timeout_s: float = 240) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        match = json.loads(get(stack, f"/api/matches/{match_id}"))
        if match["status"] in ("finished", "error"):
            assert match["status"] == "finished", match
            return dict(match)
        time.sleep(0.5)
    raise AssertionError(f"match {match_id} did not finish in {timeout_s} s")


def test_others_read_only_the_public_view_over_http(stack: Stack) -> None:
    ids = json.loads(
        stack.manage("shell", "-c", f"SOURCE = {SECRET_SOURCE!r}\n" + SEED).splitlines()[-1]
    )
    alice, bob = token_of(stack, "alice"), token_of(stack, "bob")
    viewers = {"anonymous": None, "bob": bob}

    wait_finished(stack, ids["secret"])
    own = log_of(stack, ids["secret"], alice)
    assert any("exception-secret-hunter2" in (e.get("illegal") or "") for e in own)
    paths = [f"/api/matches/{ids['secret']}", f"/api/matches/{ids['secret']}/log"]
    paths += [f"/matches/{ids['secret']}/"]
    paths += [f"/matches/{ids['secret']}/events/{e['seq']}/" for e in own]
    for who, token in viewers.items():
        for path in paths:
            body = get(stack, path, token)
            for secret in SECRETS:
                assert secret not in body, f"{who} reads {secret!r} at {path}"

    poker = wait_finished(stack, ids["poker"])
    assert any(not r["result"]["p0"]["showdown"] for r in poker["rounds"])
    showdowns = {
        r["round"]
        for r in json.loads(get(stack, f"/api/matches/{ids['poker']}", alice))["rounds"]
        if r["result"]["p0"]["showdown"]
    }
    own = log_of(stack, ids["poker"], alice)
    assert all(
        e["payload"]["your_cards"] for e in own if e["method"] == "on_turn" and e["seat"] == 0
    )
    for who, token in viewers.items():
        for e in log_of(stack, ids["poker"], token):
            if e["method"] == "on_turn" and e["round"] not in showdowns:
                assert e["payload"]["your_cards"] is None, f"{who} sees mucked cards ({e['seq']})"
        for r in json.loads(get(stack, f"/api/matches/{ids['poker']}", token))["rounds"]:
            for view in r["result"].values():
                if not view["showdown"]:
                    assert view["your_cards"] is None, f"{who}: mucked cards in the rounds"

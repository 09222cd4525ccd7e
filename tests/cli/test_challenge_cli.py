"""`arena challenge` against a live server: sends the challenge, waits, shows the result, and
explains a refusal (opt-out, over quota) with exit status 1."""

from __future__ import annotations

from typing import Any

import pytest
from arena.accounts.models import User
from arena.accounts.services import token_get_or_create
from arena.competitions.models import ChallengePolicy
from arena.matches.models import Match

from arena_cli.main import main
from tests.arena.competitions.test_competitions_browser import accepted_agent

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_arena_challenge_plays_and_explains_refusals(
    settings: Any, live_server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    settings.ARENA_CHALLENGES_PER_HOUR = 1
    alice = User.objects.create_user(username="alice", password="pw-alice-123")
    bob = User.objects.create_user(username="bob", password="pw-bob-123")
    theirs = accepted_agent(alice, "alicebot")
    mine = accepted_agent(bob, "bobbot")
    token = token_get_or_create(user=bob).key
    args = [str(theirs.agent_id), "--with", str(mine.pk), "--server", live_server.url]
    assert main(["challenge", *args, "--token", token, "--timeout", "120"]) == 0
    out = capsys.readouterr().out
    match = Match.objects.get(kind="challenge")
    assert f"/matches/{match.pk}/" in out and "status: finished" in out
    assert "bobbot v1 (bob)" in out and "alicebot v1 (alice)" in out
    # Over the hourly quota: refused with when to retry.
    assert main(["challenge", *args, "--token", token]) == 1
    err = capsys.readouterr().err
    assert "refused (429)" in err and "Try again in" in err
    # An agent that opted out: refused with the reason.
    settings.ARENA_CHALLENGES_PER_HOUR = 10
    ChallengePolicy.objects.create(agent=theirs.agent, accepts=False)
    assert main(["challenge", *args, "--username", "bob", "--password", "pw-bob-123"]) == 1
    assert "does not accept challenges" in capsys.readouterr().err

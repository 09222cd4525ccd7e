"""Challenges: an unrated match against someone else's public agent, the challenger's prints
only, opt-out and minimum rating, the hourly quota (429 + Retry-After) with a burst of 100, fair
release of a user's waiting challenges, the training queue, and the `arena challenge` command."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from arena.accounts.models import User
from arena.celery_app import app
from arena.matches.models import Match
from arena.matches.queues import RANKED, TRAINING, match_queue, queue_name
from arena.matches.selectors import match_log
from arena.notifications.models import Notification
from arena.ratings.models import RatingChange
from arena.submissions.models import Agent, Submission
from arena.workflows.dispatch import MATCH_RUN_TASK
from arena.workflows.ladder import matchmaking_run
from arena.workflows.matches import match_run
from django.test import Client

from tests.arena.api.test_api import post_json, token_client
from tests.arena.ratings.test_ladder import make_entries

pytestmark = pytest.mark.django_db


def accepted(api: Client, committed: Any, source: str, name: str) -> dict[str, Any]:
    """Upload ``source`` and let its validation run (eager): the accepted submission."""
    created = committed(
        lambda: post_json(api, "/api/submissions", {"source": source, "name": name})
    )
    assert created.status_code == 201, created.content
    body: dict[str, Any] = api.get(f"/api/submissions/{created.json()['id']}").json()
    assert body["status"] == "accepted", body
    return body


@pytest.fixture
def two_users(make_user: Any, committed: Any, starter_source: str) -> dict[str, Any]:
    alice = token_client(make_user, "alice")
    bob = token_client(make_user, "bob")
    return {
        "alice": alice,
        "bob": bob,
        "a": accepted(alice, committed, starter_source, "alicebot"),
        "b": accepted(bob, committed, starter_source, "bobbot"),
    }


def test_a_challenge_is_unrated_with_the_challengers_prints_only(
    two_users: dict[str, Any], committed: Any
) -> None:
    alice, bob, a, b = (two_users[k] for k in ("alice", "bob", "a", "b"))
    sent = committed(
        lambda: post_json(alice, "/api/challenges", {"submission": a["id"], "agent": b["agent_id"]})
    )
    assert sent.status_code == 201, sent.content
    assert sent.json()["sent"] is True
    match = Match.objects.get(pk=sent.json()["match"])
    assert (match.kind, match.status, match.rated) == ("challenge", "finished", False)
    assert match.requested_by.username == "alice"
    assert not RatingChange.objects.filter(match=match).exists()
    # Seat 0 is the challenger's (prints kept); the challenged seat's prints were never stored.
    stored = match_log(match, match.requested_by)  # alice's view: her seat as stored
    assert any(e.get("stdout") for e in stored if e.get("seat") == 0)
    staff_view = match_log(match, type("Staff", (), {"pk": 10**9, "is_staff": True})())
    assert not any(e.get("stdout") for e in staff_view if e.get("seat") == 1)
    # Both owners see it (bob's history lists it like any other); a third user does not.
    assert alice.get(f"/api/matches/{match.pk}").status_code == 200
    listed = bob.get(f"/api/matches?agent={b['agent_id']}").json()["matches"]
    assert [(r["match"], r["kind"]) for r in listed] == [(match.pk, "challenge")]
    assert Client().get(f"/api/matches/{match.pk}").status_code == 403
    assert Client().get(f"/api/matches?agent={b['agent_id']}").json()["matches"] == []
    # Bob was told he was challenged; alice that her match finished.
    kinds = set(Notification.objects.values_list("user__username", "kind"))
    assert {("bob", "challenge_received"), ("alice", "match_finished")} <= kinds


def test_a_third_party_is_told_the_rule_of_challenges(
    two_users: dict[str, Any], committed: Any, make_user: Any
) -> None:
    alice, a, b = (two_users[k] for k in ("alice", "a", "b"))
    sent = committed(
        lambda: post_json(alice, "/api/challenges", {"submission": a["id"], "agent": b["agent_id"]})
    )
    match_id = sent.json()["match"]
    carol = Client()
    carol.force_login(make_user("carol"))
    for who in (carol, Client()):
        page = who.get(f"/matches/{match_id}/")
        assert page.status_code == 403
        text = page.content.decode()
        assert "a challenge is visible to the owners of its two agents only" in text
        assert "training, validation" not in text
        api = who.get(f"/api/matches/{match_id}")
        assert api.status_code == 403
        assert api.json()["error"].startswith("a challenge is visible to the owners"), api.json()
    # A training match still says the rule of training.
    training = committed(
        lambda: post_json(
            alice, "/api/training", {"submission": a["id"], "opponent": "house:random"}
        )
    )
    refused = carol.get(f"/matches/{training.json()['match']}/").content.decode()
    assert "training matches are visible to their owner only" in refused


def test_opt_out_minimum_rating_and_wrong_targets_are_refused_with_reasons(
    two_users: dict[str, Any],
) -> None:
    alice, bob, a, b = (two_users[k] for k in ("alice", "bob", "a", "b"))

    def challenge() -> Any:
        return post_json(alice, "/api/challenges", {"submission": a["id"], "agent": b["agent_id"]})

    put = bob.put(
        f"/api/agents/{b['agent_id']}/challenge-settings",
        json.dumps({"accepts": False}),
        content_type="application/json",
    )
    assert put.status_code == 200 and put.json()["accepts"] is False
    refused = challenge()
    assert refused.status_code == 403 and "does not accept challenges" in refused.json()["error"]
    bob.put(
        f"/api/agents/{b['agent_id']}/challenge-settings",
        json.dumps({"accepts": True, "min_rating": 1500}),
        content_type="application/json",
    )
    refused = challenge()
    assert refused.status_code == 403
    assert (
        "rated 1500 or more" in refused.json()["error"]
        and "no rating yet" in refused.json()["error"]
    )
    # Only the owner changes the settings.
    assert (
        alice.put(
            f"/api/agents/{b['agent_id']}/challenge-settings",
            json.dumps({"accepts": True}),
            content_type="application/json",
        ).status_code
        == 403
    )
    own = post_json(alice, "/api/challenges", {"submission": a["id"], "agent": a["agent_id"]})
    assert own.status_code == 400 and "training match" in own.json()["error"]
    other = post_json(bob, "/api/challenges", {"submission": a["id"], "agent": a["agent_id"]})
    assert other.status_code == 403


@pytest.fixture
def sent_tasks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[int, str | None]]]:
    """Record the match tasks sent (match id, queue) instead of running them."""
    sent: list[tuple[int, str | None]] = []
    task = app.tasks[MATCH_RUN_TASK]

    def fake(args: Any = None, queue: str | None = None, **_: Any) -> None:
        sent.append((int(args[0]), queue))

    monkeypatch.setattr(task, "apply_async", fake)
    yield sent


def test_a_burst_of_100_gets_the_quota_then_429_and_ranked_play_goes_on(
    settings: Any,
    make_user: Any,
    django_capture_on_commit_callbacks: Any,
    sent_tasks: list[tuple[int, str | None]],
) -> None:
    settings.ARENA_CHALLENGES_PER_HOUR = 10
    settings.ARENA_CHALLENGES_IN_FLIGHT = 2
    ladder = make_entries("simple-card", 6)
    target = ladder[0]
    api = token_client(make_user, "mallory")
    mallory = User.objects.get(username="mallory")
    mine = Submission.objects.create(
        agent=Agent.objects.create(owner=mallory, game="simple-card", name="flood"),
        version=1,
        source="",
        sha256="0" * 64,
        game_version=target.game_version,
        status=Submission.Status.ACCEPTED,
    )
    statuses, retry_after, ranked_during = [], set(), 0
    with django_capture_on_commit_callbacks(execute=True):
        for i in range(100):
            r = post_json(api, "/api/challenges", {"submission": mine.pk, "agent": target.agent_id})
            statuses.append(r.status_code)
            if r.status_code == 429:
                retry_after.add(int(r["Retry-After"]))
                assert "the limit is 10 an hour" in r.json()["error"]
            if i % 25 == 0:  # matchmaking passes interleaved with the burst
                ranked_during += len(matchmaking_run())
    assert statuses.count(201) == 10 and statuses.count(429) == 90
    assert statuses[:10] == [201] * 10
    assert retry_after and all(1 <= s <= 3600 for s in retry_after)
    challenges = Match.objects.filter(kind="challenge")
    assert challenges.count() == 10
    # Fair share: two sent to the training queue at once, eight waiting their turn.
    training = [m for m, q in sent_tasks if q == queue_name(TRAINING)]
    assert len(training) == 2 and challenges.filter(enqueued__isnull=True).count() == 8
    # Ranked matchmaking paired and sent its matches during the burst, on its own queue.
    ranked = list(Match.objects.filter(kind="ranked").values_list("pk", flat=True))
    assert ranked_during == len(ranked) > 0
    assert {m for m, q in sent_tasks if q == queue_name(RANKED)} == set(ranked)
    assert all(match_queue(m) == queue_name(RANKED) for m in Match.objects.filter(kind="ranked"))
    assert all(match_queue(m) == queue_name(TRAINING) for m in challenges)
    assert queue_name(TRAINING) in settings.ARENA_WORKER_QUEUES


@pytest.fixture
def three_challenges(
    settings: Any,
    two_users: dict[str, Any],
    django_capture_on_commit_callbacks: Any,
    sent_tasks: list[tuple[int, str | None]],
) -> list[int]:
    """Alice challenges Bob's agent three times with one challenge allowed in flight: the
    first is sent, the others wait (their match ids, in order)."""
    settings.ARENA_CHALLENGES_IN_FLIGHT = 1
    alice, a, b = two_users["alice"], two_users["a"], two_users["b"]
    with django_capture_on_commit_callbacks(execute=True):
        return [
            post_json(
                alice, "/api/challenges", {"submission": a["id"], "agent": b["agent_id"]}
            ).json()["match"]
            for _ in range(3)
        ]


def test_a_finished_challenge_releases_the_next_waiting_one(
    three_challenges: list[int],
    django_capture_on_commit_callbacks: Any,
    sent_tasks: list[tuple[int, str | None]],
) -> None:
    ids = three_challenges
    assert [m for m, _ in sent_tasks] == [ids[0]]
    with django_capture_on_commit_callbacks(execute=True):
        match_run(match_id=ids[0])
    assert Match.objects.get(pk=ids[0]).status == "finished"
    assert [m for m, _ in sent_tasks] == [ids[0], ids[1]]
    assert Match.objects.get(pk=ids[2]).enqueued is None


def test_the_agent_page_challenges_and_says_when_over_quota(
    settings: Any, two_users: dict[str, Any], committed: Any
) -> None:
    settings.ARENA_CHALLENGES_PER_HOUR = 1
    a, b = two_users["a"], two_users["b"]
    web = Client()
    web.login(username="alice", password="pw-alice-123")
    page = web.get(f"/submissions/agents/{b['agent_id']}/")
    assert b'id="challenge-form"' in page.content and b"alicebot v1" in page.content
    first = committed(
        lambda: web.post(f"/agents/{b['agent_id']}/challenge/", {"submission": a["id"]})
    )
    assert first.status_code == 302 and "/matches/" in first["Location"]
    second = web.post(f"/agents/{b['agent_id']}/challenge/", {"submission": a["id"]})
    assert second.status_code == 429 and int(second["Retry-After"]) > 0
    assert b"the limit is 1 an hour" in second.content and b"Try again in" in second.content
    # The owner sees the settings form instead; an opted-out agent says so to others.
    owner = Client()
    owner.login(username="bob", password="pw-bob-123")
    assert b'id="challenge-settings"' in owner.get(f"/submissions/agents/{b['agent_id']}/").content
    owner.post(f"/agents/{b['agent_id']}/challenge-settings/", {"min_rating": ""})
    assert b'id="no-challenges"' in web.get(f"/submissions/agents/{b['agent_id']}/").content


def test_the_sweeper_releases_held_challenges_within_the_share_only(
    settings: Any,
    three_challenges: list[int],
    django_capture_on_commit_callbacks: Any,
    sent_tasks: list[tuple[int, str | None]],
) -> None:
    from datetime import timedelta

    from arena.workflows.lifecycle import matches_sweep
    from django.utils import timezone

    ids = three_challenges
    long_ago = timezone.now() - timedelta(seconds=settings.ARENA_MATCH_QUEUED_MAX_S + 60)
    Match.objects.filter(pk__in=ids).update(created=long_ago)
    Match.objects.filter(pk=ids[0]).update(status="running", started=timezone.now())
    with django_capture_on_commit_callbacks(execute=True):
        matches_sweep()
    assert [m for m, _ in sent_tasks] == [ids[0]]  # one in flight: the others keep waiting
    Match.objects.filter(pk=ids[0]).update(status="error")  # ended without the release
    with django_capture_on_commit_callbacks(execute=True):
        matches_sweep()
    assert [m for m, _ in sent_tasks] == [ids[0], ids[1]]

"""Notifications: inbox and header count, email through Django's email backend (locmem), sent
once per event however often its task runs, per-kind settings, signed webhooks only to public
HTTPS addresses (checked again at send time), auto-pause of an agent that keeps forfeiting, and
a broken notifier never failing a match's recording."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import pytest
from arena.accounts.models import User
from arena.competitions.models import LadderPause
from arena.matches.models import Match
from arena.notifications import services as notification_services
from arena.notifications import webhooks
from arena.notifications.models import Delivery, Kind, Notification
from arena.notifications.services import delivery_send, notify
from arena.ratings.services import rating_ensure
from arena.submissions.models import Agent, Submission
from arena.submissions.services import house_submission_ensure
from arena.workflows.dispatch import match_schedule
from arena.workflows.matches import match_run
from django.core import mail
from django.test import Client

from games.core import get_game_spec
from tests.arena.api.test_api import post_json, token_client
from tests.arena.conftest import BAD_AGENT_SOURCE

pytestmark = pytest.mark.django_db


@pytest.fixture
def email_on(settings: Any) -> None:
    settings.ARENA_NOTIFY_EMAIL = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def test_a_validation_is_emailed_once_and_counted_in_the_header(
    email_on: None, make_user: Any, committed: Any, starter_source: str
) -> None:
    api = token_client(make_user, "alice")
    User.objects.filter(username="alice").update(email="alice@example.org")
    created = committed(lambda: post_json(api, "/api/submissions", {"source": starter_source}))
    assert created.status_code == 201
    [sent] = mail.outbox
    assert sent.to == ["alice@example.org"] and "was accepted" in sent.subject
    assert f"/submissions/{created.json()['id']}/" in sent.body
    web = Client()
    web.login(username="alice", password="pw-alice-123")
    page = web.get("/").content.decode()
    assert 'id="unread-count">1<' in page
    inbox = web.get("/notifications/").content.decode()
    assert "was accepted" in inbox and 'class="unread"' in inbox
    # A redelivered task and a repeated event send nothing more.
    delivery = Delivery.objects.get()
    assert delivery.status == "sent" and delivery.attempts == 1
    delivery_send(delivery_id=delivery.pk)
    alice = User.objects.get(username="alice")
    again = notify(
        user=alice, kind="validation", subject="x", dedupe_key=f"validation:{created.json()['id']}"
    )
    assert again is None and len(mail.outbox) == 1
    assert api.get("/api/notifications").json()["unread"] == 1
    web.post("/notifications/read/")
    assert 'id="unread-count"' not in web.get("/").content.decode()
    assert api.get("/api/notifications").json()["unread"] == 0


def test_settings_turn_a_channel_off_and_email_failures_never_reach_the_caller(
    email_on: None, settings: Any, make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    alice = make_user("alice")
    alice.email = "alice@example.org"
    alice.save()
    web = Client()
    web.force_login(alice)
    # The page's form sends every ticked box: all but validation's email.
    form = {f"{k}:{c}": "on" for k in Kind.values for c in ("inbox", "email", "webhook")}
    form.pop("validation:email")
    form["action"] = "preferences"
    assert web.post("/notifications/settings/", form).status_code == 302
    with django_capture_on_commit_callbacks(execute=True):
        notify(user=alice, kind="validation", subject="v", dedupe_key="k1")
        notify(user=alice, kind="agent_paused", subject="p", dedupe_key="k2")
    assert [m.subject for m in mail.outbox] == ["[Agent Arena] p"]
    # A mail server that refuses: the delivery records it and gives up; notify itself is fine.
    settings.EMAIL_BACKEND = "tests.arena.notifications.test_notifications.RefusingBackend"
    with django_capture_on_commit_callbacks(execute=True):
        assert notify(user=alice, kind="agent_paused", subject="q", dedupe_key="k3") is not None
    failed = Delivery.objects.get(notification__dedupe_key="k3")
    assert failed.status == "failed" and "refused on purpose" in failed.last_error


class RefusingBackend:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def send_messages(self, messages: Any) -> int:
        raise ConnectionRefusedError("refused on purpose")


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://93.184.216.34/hook", "https://"),
        ("https://127.0.0.1/hook", "127.0.0.1"),
        ("https://10.1.2.3/hook", "10.1.2.3"),
        ("https://169.254.169.254/latest", "169.254.169.254"),
        ("https://[::1]/hook", "::1"),
        ("https://[::ffff:127.0.0.1]/hook", "::ffff:127.0.0.1"),
        ("https://localhost/hook", "private, loopback"),
        ("https://user:pw@93.184.216.34/hook", "user name"),
    ],
)
def test_webhooks_go_to_public_https_addresses_only(make_user: Any, url: str, why: str) -> None:
    api = token_client(make_user)
    web = Client()
    web.force_login(User.objects.get(username="alice"))
    response = web.post("/notifications/settings/", {"action": "webhook", "url": url})
    assert response.status_code == 302
    flash = web.get("/notifications/settings/").content.decode()
    assert why in flash and 'id="webhook-url"' not in flash
    assert api.get("/api/notifications").status_code == 200


def test_a_webhook_is_signed_and_checked_again_at_send_time(
    make_user: Any, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    alice = make_user("alice")
    hook = notification_services.webhook_set(user=alice, url="https://93.184.216.34/arena?x=1")
    posted: list[tuple[webhooks.Target, bytes, dict[str, str]]] = []
    monkeypatch.setattr(
        webhooks,
        "post",
        lambda target, body, headers, timeout_s: posted.append((target, body, headers)) or 204,
    )
    with django_capture_on_commit_callbacks(execute=True):
        notify(user=alice, kind="challenge_received", subject="bob challenged", url="/matches/3/")
    [(target, body, headers)] = posted
    assert (target.address, target.host, target.path) == (
        "93.184.216.34",
        "93.184.216.34",
        "/arena?x=1",
    )
    # Verifying as docs/using.md says: HMAC-SHA256 over "<timestamp>.<body>" with the secret.
    expected = hmac.new(
        hook.secret.encode(),
        headers["X-Arena-Timestamp"].encode() + b"." + body,
        hashlib.sha256,
    ).hexdigest()
    assert hmac.compare_digest(headers["X-Arena-Signature"], f"sha256={expected}")
    payload = json.loads(body)
    assert (payload["kind"], payload["subject"]) == ("challenge_received", "bob challenged")
    assert (
        payload["url"].endswith("/matches/3/") and headers["X-Arena-Event"] == "challenge_received"
    )
    # The name now resolves to a loopback address (DNS rebinding): nothing is posted.
    monkeypatch.setattr(webhooks, "resolve", lambda host, port: ["127.0.0.1"])
    with django_capture_on_commit_callbacks(execute=True):
        notify(user=alice, kind="challenge_received", subject="again")
    assert len(posted) == 1
    refused = Delivery.objects.filter(channel="webhook").order_by("-id").first()
    assert refused is not None and refused.status == "failed" and "127.0.0.1" in refused.last_error


def crashing_entry(owner: User) -> Submission:
    agent = Agent.objects.create(owner=owner, game="simple-card", name="crashy")
    submission = Submission.objects.create(
        agent=agent,
        version=1,
        source=BAD_AGENT_SOURCE,
        sha256="0" * 64,
        game_version=get_game_spec("simple-card").version,
        status=Submission.Status.ACCEPTED,
        active=True,
    )
    rating_ensure(submission=submission)
    return submission


def ranked_against_house(submission: Submission) -> Match:
    house = house_submission_ensure(game="simple-card", bot="random")
    match = match_schedule(kind="ranked", submissions=[submission, house])
    match_run(match_id=match.pk)
    match.refresh_from_db()
    return match


def test_an_agent_that_keeps_forfeiting_is_paused_and_its_owner_told(
    email_on: None, settings: Any, make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.ARENA_AUTOPAUSE_FORFEITS = 3
    owner = make_user("alice")
    owner.email = "alice@example.org"
    owner.save()
    submission = crashing_entry(owner)
    with django_capture_on_commit_callbacks(execute=True):  # the email is sent after commit
        played = [ranked_against_house(submission) for _ in range(3)]
    assert all(m.status == "finished" for m in played)
    assert [m.participants.get(seat=0).reason for m in played] == ["illegal"] * 3
    submission.refresh_from_db()
    assert submission.active is False
    pause = LadderPause.objects.get(submission=submission)
    assert sorted(pause.match_ids) == sorted(m.pk for m in played)
    assert "forfeited its last 3 ranked matches in a row" in pause.reason
    told = Notification.objects.get(user=owner, kind="agent_paused")
    assert all(f"#{m.pk}" in told.body for m in played)
    assert any("taken off the ladder" in m.subject for m in mail.outbox)
    page = Client().get(f"/submissions/agents/{submission.agent_id}/").content.decode()
    assert 'id="autopause"' in page and f"/matches/{played[0].pk}/" in page
    # Back on the ladder: the old forfeits no longer count.
    from arena.workflows.submissions import submission_activate

    submission_activate(submission=submission, user=owner)
    assert (
        'id="autopause"'
        not in Client().get(f"/submissions/agents/{submission.agent_id}/").content.decode()
    )
    ranked_against_house(submission)
    submission.refresh_from_db()
    assert submission.active is True and LadderPause.objects.count() == 1


def test_a_broken_notifier_never_fails_the_match(
    make_user: Any, monkeypatch: pytest.MonkeyPatch, committed: Any, starter_source: str
) -> None:
    import arena.workflows.competitions as effects

    def broken(**_: Any) -> None:
        raise RuntimeError("the notifier is broken")

    monkeypatch.setattr(effects, "notify", broken)
    api = token_client(make_user, "alice")
    created = committed(lambda: post_json(api, "/api/submissions", {"source": starter_source}))
    assert api.get(f"/api/submissions/{created.json()['id']}").json()["status"] == "accepted"
    training = committed(
        lambda: post_json(
            api,
            "/api/training",
            {"submission": created.json()["id"], "opponent": "house:random", "timed": False},
        )
    )
    assert Match.objects.get(pk=training.json()["match"]).status == "finished"
    assert not Notification.objects.exists()


def test_a_validation_the_platform_could_not_run_is_told_too(
    settings: Any, make_user: Any, starter_source: str
) -> None:
    from arena.matches.services import PlayFailure
    from arena.workflows.matches import match_fail
    from arena.workflows.submissions import submission_upload

    alice = make_user("alice")
    submission = submission_upload(owner=alice, source=starter_source)  # not run: no commit
    match = Match.objects.get(kind="validation")
    Match.objects.filter(pk=match.pk).update(attempts=settings.ARENA_MATCH_MAX_ATTEMPTS)
    match_fail(match_id=match.pk, failure=PlayFailure(error="the sandbox is gone"))
    told = Notification.objects.get(user=alice, kind="validation")
    assert told.subject == f"{submission.label} could not be validated (not your agent's fault)"
    assert "administrator can re-run it" in told.body

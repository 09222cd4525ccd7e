"""Admin: the pages load, matches can be re-run and voided, users disabled."""

from __future__ import annotations

from typing import Any

import pytest
from arena.accounts.models import User
from arena.matches.models import Match
from arena.matches.status import match_time_limits_s
from arena.submissions.models import Submission
from arena.submissions.services import house_submission_ensure
from arena.workflows.dispatch import match_schedule
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(make_user: Any) -> Client:
    User.objects.create_superuser("root", password="root-pass-123")
    client = Client()
    client.login(username="root", password="root-pass-123")
    return client


def a_match() -> Match:
    return match_schedule(
        kind="ranked",
        submissions=[
            house_submission_ensure(game="simple-card", bot="random"),
            house_submission_ensure(game="simple-card", bot="highest"),
        ],
    )


@pytest.mark.parametrize(
    "url",
    [
        "/admin/",
        "/admin/matches/match/",
        "/admin/submissions/submission/",
        "/admin/accounts/user/",
        "/admin/ratings/rating/",
    ],
)
def test_admin_pages_load(admin_client: Client, url: str) -> None:
    a_match()
    assert admin_client.get(url).status_code == 200


def test_void_then_rerun(admin_client: Client, committed: Any) -> None:
    match = a_match()
    admin_client.post("/admin/matches/match/", {"action": "void", "_selected_action": [match.pk]})
    match.refresh_from_db()
    assert match.status == "error" and "voided" in match.error
    committed(
        lambda: admin_client.post(
            "/admin/matches/match/", {"action": "rerun", "_selected_action": [match.pk]}
        )
    )
    match.refresh_from_db()
    assert match.status == "finished"  # re-queued and played (eager worker)


def test_disabling_a_user_takes_their_agents_off_the_ladder(
    admin_client: Client, make_user: Any
) -> None:
    from arena.submissions.models import Agent

    bob = make_user("bob")
    agent = Agent.objects.create(owner=bob, game="simple-card", name="bobbot")
    mine = Submission.objects.create(
        agent=agent,
        version=1,
        source="",
        sha256="0",
        game_version=1,
        status="accepted",
        active=True,
    )
    admin_client.post(
        "/admin/accounts/user/", {"action": "disable_users", "_selected_action": [bob.pk]}
    )
    bob.refresh_from_db()
    mine.refresh_from_db()
    assert not bob.is_active and not mine.active


def test_time_limits_come_from_the_game_and_leave_room_for_every_call() -> None:
    match = a_match()
    soft, hard = match_time_limits_s(match)
    assert 300 <= hard <= 6 * 3600 and soft < hard
    match.timed = False
    assert match_time_limits_s(match)[1] > hard  # untimed calls may take 60 s each


def test_the_admin_names_each_kind_of_row_in_english(admin_client: Client) -> None:
    from django.apps import apps

    # Django's default plural adds an "s": "Challenge policys", "Deliverys", "Entrys".
    wrong = {}
    for model in apps.get_models():
        singular, plural = str(model._meta.verbose_name), str(model._meta.verbose_name_plural)
        if singular[-1:] == "y" and singular[-2:-1] not in "aeiou" and plural == singular + "s":
            wrong[model.__name__] = plural
        if singular.endswith(("s", "x", "ch", "sh")) and plural == singular + "s":
            wrong[model.__name__] = plural
    assert wrong == {}
    index = admin_client.get("/admin/").content.decode()
    for plural in ("Challenge policies", "Deliveries"):
        assert plural in index
    assert "policys" not in index and "Deliverys" not in index


def test_rerun_of_a_match_that_did_not_fail_is_refused_with_a_reason(admin_client: Client) -> None:
    match = a_match()  # queued
    response = admin_client.post(
        "/admin/matches/match/", {"action": "rerun", "_selected_action": [match.pk]}, follow=True
    )
    assert response.status_code == 200
    assert "only a match that ended in an error can be re-run" in response.content.decode()
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED


def test_a_disallowed_status_change_is_an_internal_error_not_a_refusal() -> None:
    # A bug in the caller must not read as a user's refusal (a 4xx, an admin warning).
    from arena.errors import Refused
    from arena.matches.status import InvalidTransition, match_set_status

    match = a_match()
    with pytest.raises(InvalidTransition) as raised:
        match_set_status(match=match, status=Match.Status.FINISHED)
    assert not isinstance(raised.value, Refused)

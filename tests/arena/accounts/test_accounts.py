"""Accounts a real user expects: a password reset by email (the link followed for real), a
password change, an email address verified before uploads when the site sends email (and no
such step when it does not), and deleting one's account (agents leave the ladders, matches stay
under an anonymised name). Mail goes to Django's locmem backend."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

pytestmark = pytest.mark.django_db

LINK = re.compile(r"https?://[^/\s]+(/\S+)")


@pytest.fixture
def email_on(settings: Any) -> Any:
    """An operator who configured email: mail is sent, uploads need a verified address."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.ARENA_EMAIL_ENABLED = True
    settings.ARENA_EMAIL_VERIFICATION = True
    return settings


def link_in(message: Any) -> str:
    found = LINK.search(message.body)
    assert found, message.body
    return found.group(1)


def test_the_sign_in_page_is_the_sites_and_offers_a_password_reset(email_on: Any) -> None:
    page = Client().get("/accounts/login/").content.decode()
    assert 'class="card form"' in page and 'id="forgot-password"' in page
    assert "/accounts/password/reset/" in page


def test_a_forgotten_password_is_reset_by_email(make_user: Any, email_on: Any) -> None:
    user = make_user("rita")
    user.email = "rita@example.org"
    user.save()
    client = Client()
    response = client.post("/accounts/password/reset/", {"email": "rita@example.org"})
    assert response.status_code == 302 and response.url == "/accounts/password/reset/sent/"
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["rita@example.org"]
    assert "choose a new password" in mail.outbox[0].subject
    # Follow the link as a person would: Django redirects to the form's own address.
    response = client.get(link_in(mail.outbox[0]), follow=True)
    page = response.content.decode()
    assert "Choose a new password" in page and 'name="new_password1"' in page
    form_url = response.redirect_chain[-1][0]
    response = client.post(
        form_url, {"new_password1": "fresh-pass-4821", "new_password2": "fresh-pass-4821"}
    )
    assert response.status_code == 302 and response.url == "/accounts/password/reset/done/"
    assert Client().login(username="rita", password="fresh-pass-4821")
    # The link works once.
    again = client.get(link_in(mail.outbox[0]), follow=True).content.decode()
    assert "does not work any more" in again


def test_without_email_the_reset_page_says_what_to_do_instead(
    make_user: Any, settings: Any
) -> None:
    settings.ARENA_EMAIL_ENABLED = False
    settings.ARENA_EMAIL_VERIFICATION = False
    page = Client().get("/accounts/password/reset/").content.decode()
    assert 'id="no-email"' in page and "changepassword" in page
    Client().post("/accounts/password/reset/", {"email": "x@example.org"})
    assert mail.outbox == []


def test_a_password_is_changed(make_user: Any) -> None:
    make_user("cid")
    client = Client()
    assert client.login(username="cid", password="pw-cid-123")
    page = client.get("/accounts/").content.decode()
    assert 'id="change-password"' in page
    response = client.post(
        "/accounts/password/change/",
        {
            "old_password": "pw-cid-123",
            "new_password1": "another-pass-2290",
            "new_password2": "another-pass-2290",
        },
    )
    assert response.status_code == 302
    assert Client().login(username="cid", password="another-pass-2290")


def test_uploads_wait_for_a_verified_address_when_the_site_sends_email(
    email_on: Any, committed: Any, starter_source: str
) -> None:
    from arena.accounts.models import User
    from arena.submissions.models import Submission

    client = Client()
    response = client.post(
        "/accounts/signup/",
        {
            "username": "vera",
            "email": "vera@example.org",
            "password1": "a-long-pass-9",
            "password2": "a-long-pass-9",
        },
    )
    assert response.status_code == 302
    assert len(mail.outbox) == 1 and "confirm your email" in mail.outbox[0].subject
    upload = SimpleUploadedFile("a.py", starter_source.encode())
    page = client.post("/submissions/upload/", {"file": upload}).content.decode()
    assert "verified email address" in page and "vera@example.org" in page
    assert not Submission.objects.exists()

    page = client.get(link_in(mail.outbox[0])).content.decode()
    assert 'id="verified"' in page
    assert User.objects.get(username="vera").email_verified
    upload = SimpleUploadedFile("a.py", starter_source.encode())
    committed(lambda: client.post("/submissions/upload/", {"file": upload}))
    assert Submission.objects.filter(agent__owner__username="vera").count() == 1

    # A new address must be verified again; a tampered link is refused with words.
    client.post("/accounts/", {"action": "email", "email": "vera2@example.org"})
    assert not User.objects.get(username="vera").email_verified
    assert mail.outbox[-1].to == ["vera2@example.org"]
    link = link_in(mail.outbox[-1])
    tampered = link[:-2] + ("A" if link[-2] != "A" else "B") + "/"
    refused = Client().get(tampered)
    assert refused.status_code == 400 and "not valid" in refused.content.decode()
    # The old link names an address the account no longer has.
    old = Client().get(link_in(mail.outbox[0]))
    assert old.status_code == 400 and "no longer has" in old.content.decode()


def test_without_email_no_verification_is_asked(
    settings: Any, committed: Any, starter_source: str
) -> None:
    from arena.submissions.models import Submission

    settings.ARENA_EMAIL_ENABLED = False
    settings.ARENA_EMAIL_VERIFICATION = False
    client = Client()
    signup = client.get("/accounts/signup/").content.decode()
    assert "does not ask you to verify" in signup
    client.post(
        "/accounts/signup/",
        {"username": "noel", "password1": "a-long-pass-9", "password2": "a-long-pass-9"},
    )
    assert "no verification is needed" in client.get("/accounts/").content.decode()
    upload = SimpleUploadedFile("a.py", starter_source.encode())
    committed(lambda: client.post("/submissions/upload/", {"file": upload}))
    assert Submission.objects.filter(agent__owner__username="noel").count() == 1


def test_deleting_an_account_keeps_its_matches_under_an_anonymous_name(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    from arena.accounts.models import ApiToken, User
    from arena.catalog.services import demo_data_load
    from arena.submissions.models import Agent, Submission

    demo_data_load()
    user = make_user("dana")
    client = Client()
    client.force_login(user)
    upload = SimpleUploadedFile("mybot.py", starter_source.encode())
    committed(lambda: client.post("/submissions/upload/", {"file": upload}))
    submission = Submission.objects.get(agent__owner=user)
    client.post(f"/submissions/{submission.pk}/ladder/", {"action": "activate"})
    match_url = committed(
        lambda: client.post(f"/submissions/{submission.pk}/train/", {"opponent": "house:random"})
    ).url
    client.get("/accounts/token/")
    assert ApiToken.objects.filter(user=user).exists()

    wrong = client.post("/accounts/delete/", {"password": "nope", "confirm": "on"})
    assert wrong.status_code == 400 and "not right" in wrong.content.decode()
    # The page names the name the matches will show; the message after deleting, the same.
    said = client.get("/accounts/").content.decode().split('id="delete-account"')[1]
    assert f"“deleted-user-{user.pk}”" in said.split("</p>")[0]
    response = client.post("/accounts/delete/", {"password": "pw-dana-123", "confirm": "on"})
    assert response.status_code == 302
    told = client.get(response.url).content.decode()
    assert f"under the name “deleted-user-{user.pk}”" in told and "“deleted user”" not in told

    gone = User.objects.get(pk=user.pk)
    assert gone.username == f"deleted-user-{user.pk}" and not gone.is_active and not gone.email
    assert not gone.has_usable_password() and not ApiToken.objects.filter(user=gone).exists()
    assert not Submission.objects.filter(agent__owner=gone, active=True).exists()
    assert Agent.objects.get(owner=gone).archived is not None
    assert not Client().login(username="dana", password="pw-dana-123")
    # The game's ladder and the ranked match pages show the anonymous name, never the old one.
    board = Client().get("/games/simple-card/").content.decode()
    assert "dana" not in board.replace(f"deleted-user-{user.pk}", "")
    staff = User.objects.create_superuser("root", "root@example.org", "root-pass-123")
    admin = Client()
    admin.force_login(staff)
    match_page = admin.get(match_url).content.decode()
    assert f"deleted-user-{user.pk}" in match_page

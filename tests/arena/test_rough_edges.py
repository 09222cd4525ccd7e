"""The rough edges a newcomer met (issue 12 point 4), each checked where a test can tell."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

pytestmark = pytest.mark.django_db


def signed_in(make_user: Any, name: str) -> Client:
    client = Client()
    client.force_login(make_user(name))
    return client


def test_the_size_error_reports_the_real_size(make_user: Any) -> None:
    client = signed_in(make_user, "ann")
    big = SimpleUploadedFile("big.py", b"#" * 5_242_929)
    page = client.post("/submissions/upload/", {"file": big}).content.decode()
    assert "5,242,929 bytes" in page and "4,194,305" not in page


def test_403_and_404_are_the_sites_pages_with_the_reason_and_a_way_back(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    from arena.submissions.models import Submission

    alice, bob = signed_in(make_user, "alice"), signed_in(make_user, "bob")
    upload = SimpleUploadedFile("a.py", starter_source.encode())
    committed(lambda: alice.post("/submissions/upload/", {"file": upload}))
    submission = Submission.objects.get()
    match_url = committed(
        lambda: alice.post(f"/submissions/{submission.pk}/train/", {"opponent": "house:random"})
    ).url
    response = bob.get(match_url)
    assert response.status_code == 403
    page = response.content.decode()
    assert "visible to their owner only" in page
    assert 'id="error-page"' in page and "All games" in page and "Agent Arena" in page

    response = bob.get("/matches/999999/")
    assert response.status_code == 404
    page = response.content.decode()
    assert 'id="error-page"' in page and "no such match" in page.lower() and "All games" in page
    response = Client().get("/no/such/page/")
    assert response.status_code == 404 and "/no/such/page/" in response.content.decode()


def test_another_users_agent_page_links_no_version_they_cannot_open(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    from arena.submissions.models import Submission

    alice, bob = signed_in(make_user, "alice"), signed_in(make_user, "bob")
    upload = SimpleUploadedFile("a.py", starter_source.encode())
    committed(lambda: alice.post("/submissions/upload/", {"file": upload}))
    submission = Submission.objects.get()
    page = bob.get(f"/submissions/agents/{submission.agent_id}/").content.decode()
    assert f'href="/submissions/{submission.pk}/"' not in page
    assert (
        f'href="/submissions/{submission.pk}/"'
        in alice.get(f"/submissions/agents/{submission.agent_id}/").content.decode()
    )

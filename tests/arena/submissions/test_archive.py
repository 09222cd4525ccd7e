"""Archiving an agent: off its owner's list and the ladder until unarchived; only by its owner."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.arena.ratings.test_ladder_pages import signed_in

pytestmark = pytest.mark.django_db


def test_an_agent_is_archived_and_unarchived(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    from arena.submissions.models import Agent, Submission

    _, client = signed_in(make_user, "ola")
    upload = SimpleUploadedFile("old_bot.py", starter_source.encode())
    committed(lambda: client.post("/submissions/upload/", {"file": upload}))
    submission = Submission.objects.get(agent__owner__username="ola")
    client.post(f"/submissions/{submission.pk}/ladder/", {"action": "activate"})
    agent = submission.agent
    _, stranger = signed_in(make_user, "pat")
    assert stranger.post(f"/submissions/agents/{agent.pk}/archive/").status_code == 403

    client.post(f"/submissions/agents/{agent.pk}/archive/", {"action": "archive"})
    submission.refresh_from_db()
    assert not submission.active and Agent.objects.get(pk=agent.pk).archived is not None
    mine = client.get("/submissions/mine/").content.decode()
    assert "old_bot" not in mine.split("<tbody>")[1] and 'id="show-archived"' in mine
    assert "old_bot" in client.get("/submissions/mine/?archived=1").content.decode()
    page = client.get(f"/submissions/agents/{agent.pk}/").content.decode()
    assert 'id="archived-note"' in page and 'id="unarchive"' in page
    # An archived agent does not go back on the ladder by accident.
    client.post(f"/submissions/{submission.pk}/ladder/", {"action": "activate"})
    submission.refresh_from_db()
    assert not submission.active

    client.post(f"/submissions/agents/{agent.pk}/archive/", {"action": "unarchive"})
    assert Agent.objects.get(pk=agent.pk).archived is None
    assert "old_bot" in client.get("/submissions/mine/").content.decode()

"""Live spectating without a browser: the live head returns only what is new (from the round in
play), says when the match is over, and running ranked matches are listed where people look."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from arena.matches.models import Match, MatchEvent
from arena.submissions.services import house_submission_ensure
from arena.workflows.dispatch import match_schedule
from arena.workflows.matches import match_run
from django.db import transaction
from django.test import Client

pytestmark = pytest.mark.django_db


def replay_in(html: str) -> dict[str, Any]:
    found = re.search(
        r'<script id="replay-data" type="application/json">(.*?)</script>', html, re.S
    )
    assert found
    return dict(json.loads(found.group(1)))


def running_copy_of_a_played_match() -> Match:
    """A ranked split-or-steal match played to the end, then set back to running with only the
    first half of its log: what a spectator sees mid-match."""
    with transaction.atomic():
        match = match_schedule(
            kind="ranked",
            submissions=[
                house_submission_ensure(game="split-or-steal", bot=b)
                for b in ("always-split", "always-steal")
            ],
        )
    match_run(match_id=match.pk)
    match.refresh_from_db()
    events = MatchEvent.objects.filter(match=match).order_by("seq")
    half = events.count() // 2
    MatchEvent.objects.filter(match=match, seq__gte=half).delete()
    Match.objects.filter(pk=match.pk).update(status="running")
    match.refresh_from_db()
    return match


def test_the_live_head_sends_the_round_in_play_onward_and_keeps_polling() -> None:
    match = running_copy_of_a_played_match()
    client = Client()
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert 'hx-trigger="every 2s"' in page and 'data-live="1"' in page
    full = replay_in(page)
    assert 0 < full["round_start"] < full["total"]
    live = client.get(f"/matches/{match.pk}/live/?start={full['round_start']}")
    update = replay_in(live.content.decode())
    assert update["start"] == full["round_start"]
    assert len(update["frames"]) == full["total"] - full["round_start"]
    assert f"start={full['round_start']}" in live.content.decode()  # the next poll
    assert "HX-Trigger" not in live.headers


def test_a_finished_match_sends_everything_once_and_stops_polling() -> None:
    match = running_copy_of_a_played_match()
    Match.objects.filter(pk=match.pk).update(status="finished")
    live = Client().get(f"/matches/{match.pk}/live/?start=5")
    html = live.content.decode()
    assert replay_in(html)["start"] == 0
    assert "every 2s" not in html
    assert "matchDone" in live.headers["HX-Trigger"]


def test_running_ranked_matches_are_listed_on_the_game_home_and_agent_pages() -> None:
    match = running_copy_of_a_played_match()
    game_page = Client().get("/games/split-or-steal/").content.decode()
    live_now = game_page.split('id="live-now"')[1].split("</ul>")[0]
    assert f"/matches/{match.pk}/" in live_now
    home = Client().get("/").content.decode()
    assert f"/matches/{match.pk}/" in home.split('id="live-now"')[1].split("</ul>")[0]
    agent_id = match.participants.get(seat=0).submission.agent_id
    agent_page = Client().get(f"/submissions/agents/{agent_id}/").content.decode()
    assert "live now" in agent_page

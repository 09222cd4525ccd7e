"""An upload's validation plays the game's short match and its page shows the progress."""

from __future__ import annotations

import re
from typing import Any

import pytest
from arena.matches.models import Match, MatchEvent
from arena.submissions.models import Submission
from django.test import Client

from games.core import get_game_spec
from games.core.validation import validation_plan

pytestmark = pytest.mark.django_db


def test_the_starter_is_validated_in_the_short_match(make_user: Any, committed: Any) -> None:
    from arena.workflows.submissions import submission_upload

    owner = make_user("vera")
    source = get_game_spec("chess").starter_source()
    submission = committed(lambda: submission_upload(owner=owner, source=source, name="s"))
    submission = Submission.objects.get(pk=submission.pk)
    assert submission.status == "accepted", submission.status_detail
    assert "played a short chess match against itself" in submission.status_detail
    # The counts, not the rounds' stored results.
    assert re.search(r"\(\d+ turns, \d+ rounds?\)", submission.status_detail), (
        submission.status_detail
    )
    match = Match.objects.get(kind="validation")
    plan = validation_plan("chess")
    assert match.config == plan.config
    assert set(match.participants.values_list("submission_id", flat=True)) == {submission.pk}
    turns = MatchEvent.objects.filter(match=match, data__method="on_turn").count()
    if not turns:  # the log was packed into one blob at the end
        from arena.matches.logstore import match_log_entries

        turns = sum(e.get("method") == "on_turn" for e in match_log_entries(match))
    assert 1 <= turns <= plan.max_turns


def test_the_submission_page_shows_the_turns_played_while_it_validates(make_user: Any) -> None:
    from arena.matches.services import match_create
    from arena.submissions.models import Agent

    owner = make_user("walt")
    agent = Agent.objects.create(owner=owner, game="chess", name="w")
    submission = Submission.objects.create(
        agent=agent, version=1, source="", sha256="0" * 64, game_version=1
    )
    match = match_create(kind="validation", submissions=[submission, submission])
    client = Client()
    client.force_login(owner)
    hx = {"HTTP_HX_REQUEST": "true"}
    queued = client.get(f"/submissions/{submission.pk}/", **hx).content.decode()
    assert "Queued: next on the validation queue" in queued
    bound = validation_plan("chess").bound_s()
    assert f"done within {bound:.0f} s" in queued
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    events = [
        {"method": "on_match_start", "seat": 0},
        {"method": "on_match_start", "seat": 1},
        {"method": "on_round_start", "seat": 0},
        {"method": "on_turn", "seat": 0},
        {"method": "on_turn", "seat": 1},
        {"method": "on_turn", "seat": 0},
    ]
    MatchEvent.objects.bulk_create(
        MatchEvent(match=match, seq=i, seat=e["seat"], data={**e, "seq": i})
        for i, e in enumerate(events)
    )
    page = client.get(f"/submissions/{submission.pk}/", **hx).content.decode()
    assert (
        "Validation: 3 turns played (at most 12); calls answered so far: on_match_start, "
        "on_round_start, on_turn." in page
    )


def test_a_match_that_finishes_after_it_was_read_shows_no_progress(make_user: Any) -> None:
    """The page reads the match (running), then counts its events: if it finished in between,
    its events were packed into its log and the count would say "0 turns played" for a match
    that played them all. Progress is then none, as for any finished match."""
    from arena.matches.logstore import match_log_archive
    from arena.matches.selectors import match_progress
    from arena.matches.services import match_create
    from arena.submissions.models import Agent

    owner = make_user("xena")
    agent = Agent.objects.create(owner=owner, game="chess", name="x")
    submission = Submission.objects.create(
        agent=agent, version=1, source="", sha256="0" * 64, game_version=1
    )
    match = match_create(kind="validation", submissions=[submission, submission])
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    MatchEvent.objects.bulk_create(
        MatchEvent(match=match, seq=i, seat=i % 2, data={"method": "on_turn", "seq": i})
        for i in range(4)
    )
    read = Match.objects.get(pk=match.pk)  # what the page read: running
    progress = match_progress(read)
    assert progress is not None and progress.turn_calls == 4
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    assert match_log_archive(match_id=match.pk) is not None
    assert not MatchEvent.objects.filter(match=match).exists()
    assert match_progress(read) is None

"""Error texts a person reads: each thing said once, a traceback shown once and apart from
the next sentence, the rejection's reason prominent, a crash saying which way it ended."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from games.core.record import REASON_TEXT, Reason

pytestmark = pytest.mark.django_db


def test_a_rejection_says_each_thing_once_and_shows_the_traceback_once(
    make_user: Any, committed: Any
) -> None:
    from arena.submissions.models import Submission

    from tests.arena.conftest import BAD_AGENT_SOURCE

    client = Client()
    client.force_login(make_user("ann"))
    upload = SimpleUploadedFile("bad.py", BAD_AGENT_SOURCE.encode())
    committed(lambda: client.post("/submissions/upload/", {"file": upload}))
    submission = Submission.objects.get()
    detail = submission.status_detail
    assert detail.count("illegal actions in a row") == 1, detail
    assert not re.search(r"\d illegal actions in a row", detail), detail
    page = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert page.count("Traceback (most recent call last)") == 1, page
    assert "4 times in a row" in page
    # The traceback is its own block: the next sentence is not glued to its last line.
    block = re.search(r'<pre class="error">(.*?)</pre>', page, re.DOTALL)
    assert block and block.group(1).rstrip().endswith("my bug on purpose"), block
    # The reason is the prominent box, not small grey text.
    assert re.search(r'<p class="problems verdict" id="status-detail">In its self-play', page)


def test_a_crash_says_which_way_it_ended_and_only_once() -> None:
    from tests.games.core.test_referee import Crashing, HighestBot, LowestBot, handle, play_match

    assert "ran out of memory or broke the protocol" not in REASON_TEXT[Reason.CRASH]
    record = play_match("simple-card", [Crashing(HighestBot, "c"), handle(LowestBot)])
    seat = record.seats[0]
    assert seat.reason == "crash" and "out of memory" in seat.detail
    assert seat.detail.count("crashed") <= 1 and seat.detail.count("on_turn") == 1, seat.detail

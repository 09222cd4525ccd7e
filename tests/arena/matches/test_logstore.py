"""Match logs that scale: live rows while a match runs, one compressed blob once it ends."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from arena.matches.logstore import decode_log, match_log_entries, match_logs_maintain
from arena.matches.models import Match, MatchEvent, MatchLog
from arena.matches.selectors import match_log
from arena.matches.services import match_create
from arena.submissions.services import house_submission_ensure
from arena.workflows.matches import match_run
from django.utils import timezone

pytestmark = pytest.mark.django_db


def ranked(game: str = "simple-card") -> Match:
    bots = {"simple-card": ("random", "lowest")}[game]
    match = match_create(
        kind="ranked", submissions=[house_submission_ensure(game=game, bot=b) for b in bots]
    )
    match_run(match_id=match.pk)
    match.refresh_from_db()
    return match


def test_a_finished_match_keeps_one_blob_and_no_rows() -> None:
    match = ranked()
    assert match.status == "finished"
    assert not MatchEvent.objects.filter(match=match).exists()
    stored = MatchLog.objects.get(match=match)
    entries = decode_log(stored.data)
    assert stored.entries == len(entries) > 10
    assert [e["seq"] for e in entries] == list(range(len(entries)))
    assert len(stored.data) < stored.raw_bytes
    assert match_log_entries(match) == entries


def test_the_read_path_pages_through_either_form() -> None:
    match = ranked()
    whole = match_log(match, None)
    page = match_log(match, None, after=3, limit=5)
    assert [e["seq"] for e in page] == [4, 5, 6, 7, 8]
    assert page == whole[4:9]
    assert match_log(match, None, seq=6) == [whole[6]]
    # The same entries as live rows (a match whose blob was never written) read the same.
    raw = match_log_entries(match)
    MatchLog.objects.filter(match=match).delete()
    MatchEvent.objects.bulk_create(
        MatchEvent(match=match, seq=e["seq"], seat=e.get("seat"), data=e) for e in raw
    )
    assert match_log(match, None) == whole


def test_leftover_rows_are_packed_and_old_ranked_logs_expire(settings: Any) -> None:
    match = ranked()
    raw = match_log_entries(match)
    MatchLog.objects.filter(match=match).delete()
    MatchEvent.objects.bulk_create(
        MatchEvent(match=match, seq=e["seq"], seat=e.get("seat"), data=e) for e in raw
    )
    assert match_logs_maintain()["archived"] == 1
    assert MatchLog.objects.filter(match=match).exists()
    settings.ARENA_RANKED_LOG_RETENTION_DAYS = 30
    assert match_logs_maintain()["deleted"] == 0
    later = timezone.now() + timedelta(days=31)
    assert match_logs_maintain(now=later)["deleted"] == 1
    assert match_log(match, None) == []


def test_ranked_prints_are_kept_only_as_long_as_the_setting_says(settings: Any) -> None:
    settings.ARENA_RANKED_PRINTS_RETENTION_DAYS = 2
    match = ranked()
    stored = MatchLog.objects.get(match=match)
    assert stored.has_prints == any(e.get("stdout") for e in decode_log(stored.data))
    MatchLog.objects.filter(match=match).update(has_prints=True)
    assert match_logs_maintain()["prints_stripped"] == 0
    later = timezone.now() + timedelta(days=3)
    assert match_logs_maintain(now=later)["prints_stripped"] == 1
    assert not any(e.get("stdout") for e in match_log_entries(match))

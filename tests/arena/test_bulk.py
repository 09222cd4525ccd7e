"""What a matchmaking pass asks of the database in its own words, on SQLite here and on
PostgreSQL through ``test_bulk_on_postgres``: ``arena.bulk.insert_copies`` and the ranked
matches it stores (the rows ``bulk_create`` would have stored; PostgreSQL has its own
``INSERT … SELECT … FROM unnest``), and the last-played times read as epoch seconds."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from arena.bulk import insert_copies, update_columns
from arena.matches.models import Match, Participant
from arena.matches.services import matches_create_ranked
from arena.ratings.models import Rating
from arena.ratings.services import EpochSeconds
from django.db import connection

from tests.arena.ratings.test_ladder import make_entries
from tests.conftest import rerun_on_postgres

pytestmark = pytest.mark.django_db


def test_the_database_is_the_one_asked_for() -> None:
    assert connection.vendor == os.environ.get("ARENA_TEST_DB_VENDOR", connection.vendor)


def test_copies_take_the_template_and_their_own_columns() -> None:
    template = Match(game="chess", game_version=3, kind=Match.Kind.TRAINING, timed=False)
    rows = insert_copies(template, {"seed": [11, 22, 33]})
    assert sorted(seed for _, seed in rows) == [11, 22, 33]
    stored = {m.pk: m for m in Match.objects.filter(pk__in=[pk for pk, _ in rows])}
    assert set(stored) == {pk for pk, _ in rows}
    for pk, seed in rows:
        m = stored[pk]
        assert (m.game, m.game_version, m.kind, m.timed, m.seed) == (
            "chess",
            3,
            "training",
            False,
            seed,
        )
        # The model's defaults, as a save stores them.
        assert (m.status, m.attempts, m.config, m.rounds, m.stats, m.rated) == (
            Match.Status.QUEUED,
            0,
            {},
            [],
            {},
            False,
        )
        assert m.created is not None and m.enqueued is None and m.requested_by_id is None


def test_nothing_to_insert_and_bad_columns() -> None:
    assert insert_copies(Match(game="chess", game_version=1, kind="ranked"), {"seed": []}) == []
    with pytest.raises(ValueError, match="one value a row"):
        insert_copies(Match(), {"seed": [1], "game_version": [1, 2]})
    with pytest.raises(ValueError, match="no column"):
        insert_copies(Match(), {"colour": [1]})
    assert not Match.objects.exists()


def test_a_passes_ranked_matches_seat_each_pair_once() -> None:
    entries = make_entries("split-or-steal", 6)
    ids = [s.pk for s in entries]
    pairs = [(ids[0], ids[1]), (ids[2], ids[3]), (ids[5], ids[4])]
    matches = matches_create_ranked(game="split-or-steal", pairs=pairs)
    assert len(matches) == 3 and len({m.pk for m in matches}) == 3
    seated = {}
    for m in Match.objects.filter(pk__in=[m.pk for m in matches]):
        assert (m.kind, m.status, m.timed, m.game) == ("ranked", "queued", True, "split-or-steal")
        seats = Participant.objects.filter(match=m).order_by("seat")
        seated[m.pk] = tuple(p.submission_id for p in seats)
        assert [p.seat for p in seats] == [0, 1]
    assert sorted(seated.values()) == sorted(pairs)
    # The returned matches are the stored ones (what the enqueue reads of them).
    for m in matches:
        stored = Match.objects.get(pk=m.pk)
        assert (m.seed, m.game, m.game_version, m.kind, m.timed) == (
            stored.seed,
            stored.game,
            stored.game_version,
            stored.kind,
            stored.timed,
        )
        assert not m._state.adding


def test_last_played_is_read_as_the_same_instant_in_seconds() -> None:
    entry, never = make_entries("chess", 2)
    when = datetime(2026, 3, 4, 5, 6, 7, 891000, tzinfo=UTC)
    Rating.objects.filter(submission=entry).update(last_played=when)
    read = dict(
        Rating.objects.annotate(s=EpochSeconds("last_played")).values_list("submission_id", "s")
    )
    assert read[entry.pk] == pytest.approx(when.timestamp(), abs=0.001)
    assert read[never.pk] is None


def test_columns_are_updated_row_by_row_and_nothing_else() -> None:
    rows = [Rating.objects.get(submission=s) for s in make_entries("chess", 4)]
    before = {r.pk: (r.games, r.wins, r.rating_low) for r in rows}
    when = datetime(2026, 3, 4, 5, 6, 7, 891000, tzinfo=UTC)
    changed = rows[:3]
    updated = update_columns(
        Rating,
        [r.pk for r in changed],
        {
            "rating": [1500.5, 900.25, 1234.0],
            "deviation": [50.0, 60.0, 70.0],
            "last_played": [when, None, when],
        },
    )
    assert updated == 3
    after = {r.pk: r for r in Rating.objects.filter(pk__in=[r.pk for r in rows])}
    assert [(after[r.pk].rating, after[r.pk].deviation) for r in changed] == [
        (1500.5, 50.0),
        (900.25, 60.0),
        (1234.0, 70.0),
    ]
    assert [after[r.pk].last_played for r in changed] == [when, None, when]
    untouched = rows[3]
    assert (after[untouched.pk].rating, after[untouched.pk].deviation) == (
        untouched.rating,
        untouched.deviation,
    )
    for r in rows:  # columns not named keep their values
        assert (after[r.pk].games, after[r.pk].wins, after[r.pk].rating_low) == before[r.pk]
    assert update_columns(Rating, [], {"rating": []}) == 0
    with pytest.raises(ValueError, match="one value a row"):
        update_columns(Rating, [rows[0].pk], {"rating": [1.0, 2.0]})
    with pytest.raises(ValueError, match="not a column"):
        update_columns(Rating, [rows[0].pk], {"id": [5]})


@pytest.mark.postgres
def test_bulk_on_postgres(tmp_path: Path) -> None:
    """This file's tests again on PostgreSQL (pytest-django's database is per session)."""
    if os.environ.get("ARENA_TEST_DB_VENDOR"):
        pytest.skip("already the PostgreSQL run")
    out = rerun_on_postgres(tmp_path, __file__, "-k", "not on_postgres", timeout_s=300)
    assert "6 passed" in out, out[-1000:]

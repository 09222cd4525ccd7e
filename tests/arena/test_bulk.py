"""``arena.bulk.insert_copies`` and the ranked matches a matchmaking pass stores with it: the
rows are what ``bulk_create`` would have stored, on SQLite here and on PostgreSQL (its own
``INSERT … SELECT … FROM unnest``) through ``test_bulk_on_postgres``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from arena.bulk import insert_copies
from arena.matches.models import Match, Participant
from arena.matches.services import matches_create_ranked
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


@pytest.mark.postgres
def test_bulk_on_postgres(tmp_path: Path) -> None:
    """This file's tests again on PostgreSQL (pytest-django's database is per session)."""
    if os.environ.get("ARENA_TEST_DB_VENDOR"):
        pytest.skip("already the PostgreSQL run")
    out = rerun_on_postgres(tmp_path, __file__, "-k", "not on_postgres", timeout_s=300)
    assert "4 passed" in out, out[-1000:]

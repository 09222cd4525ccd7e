"""Bytes stored per finished 100-hand poker match: per-call rows (before) vs one blob (after).

Plays one ranked poker match between two house bots (in-process handles, the real referee and
services) on a throw-away SQLite database, then measures the match's log in both forms:

* before: one ``MatchEvent`` row per call, as the live writer stores them while a match runs
  (and as every finished match was kept before this change);
* after: the one gzip JSON-lines ``MatchLog`` blob ``match_log_archive`` keeps once it ends.

"db_bytes" are what the database uses for the table, its indexes (and on PostgreSQL its TOAST
table), after a VACUUM: SQLite's pages from ``dbstat``, PostgreSQL's
``pg_total_relation_size``; "payload_bytes" is the stored data alone.
Run: `.venv/bin/python bench/match_log_bytes.py [--hands 100] [--postgres]` (``--postgres``
starts a throw-away PostgreSQL cluster, as the test suite does).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]


def _setup_django(var: Path, database_url: str) -> None:
    os.environ.update(
        DJANGO_SETTINGS_MODULE="arena.settings",
        DJANGO_SECRET_KEY="bench-only-" + "x" * 40,
        ARENA_VAR_DIR=str(var),
        ARENA_DATABASE_URL=database_url,
        ARENA_LOG_LEVEL="WARNING",
    )
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def _table_bytes(table: str) -> int:
    """Bytes the database uses for ``table`` with its indexes (and TOAST on PostgreSQL)."""
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT pg_total_relation_size(%s)", [table])
            return int(cursor.fetchone()[0])
        cursor.execute("SELECT name FROM sqlite_master WHERE tbl_name = %s", [table])
        names = [row[0] for row in cursor.fetchall()]
        marks = ",".join("%s" for _ in names)
        cursor.execute(
            f"SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name IN ({marks})", names
        )
        return int(cursor.fetchone()[0])


def _vacuum() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM FULL" if connection.vendor == "postgresql" else "VACUUM")


def run(hands: int, bots: list[str]) -> dict[str, object]:
    from arena.matches.logstore import match_log_archive, match_log_entries
    from arena.matches.models import Match, MatchEvent, MatchLog
    from arena.matches.services import match_create
    from arena.submissions.services import house_submission_ensure
    from arena.workflows.matches import match_run

    match = match_create(
        kind="ranked",
        submissions=[house_submission_ensure(game="poker", bot=b) for b in bots],
        seed=1,
    )
    Match.objects.filter(pk=match.pk).update(config={"hands": hands})
    began = time.perf_counter()
    match_run(match_id=match.pk)
    played_s = time.perf_counter() - began
    match.refresh_from_db()
    assert match.status == "finished", match.error
    entries = match_log_entries(match)

    # "Before": the same entries as the per-call rows the live writer stores.
    MatchLog.objects.filter(match=match).delete()
    MatchEvent.objects.bulk_create(
        MatchEvent(match=match, seq=e["seq"], seat=e.get("seat"), data=e) for e in entries
    )
    _vacuum()
    rows_payload = sum(len(json.dumps(e)) for e in entries)
    before = {
        "rows": MatchEvent.objects.filter(match=match).count(),
        "payload_bytes": rows_payload,
        "db_bytes": _table_bytes("matches_matchevent"),
    }

    began = time.perf_counter()
    stored = match_log_archive(match_id=match.pk)
    archive_ms = (time.perf_counter() - began) * 1000
    assert stored is not None
    _vacuum()
    after = {
        "rows": MatchEvent.objects.filter(match=match).count(),
        "payload_bytes": len(bytes(stored.data)),
        "uncompressed_json_lines_bytes": stored.raw_bytes,
        "db_bytes": _table_bytes("matches_matchlog"),
    }
    from django.db import connection

    return {
        "database": connection.vendor,
        "game": "poker",
        "hands": hands,
        "bots": bots,
        "calls": len(entries),
        "before_per_call_rows": before,
        "after_one_blob": after,
        "db_bytes_ratio": round(before["db_bytes"] / max(1, after["db_bytes"]), 1),
        "match_played_s": round(played_s, 2),
        "archive_ms": round(archive_ms, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--bots", nargs=2, default=["always-call", "raise-happy"])
    parser.add_argument("--postgres", action="store_true", help="measure on PostgreSQL")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        var = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="arena-log-bench-")))
        url = f"sqlite:///{var / 'bench.sqlite3'}"
        if args.postgres:
            from devtools.parts import postgres_available, postgres_server

            if not postgres_available():
                raise SystemExit("--postgres needs the PostgreSQL server binaries installed")
            url = stack.enter_context(postgres_server())
        _setup_django(var, url)
        print(json.dumps(run(args.hands, args.bots), indent=2))


if __name__ == "__main__":
    main()

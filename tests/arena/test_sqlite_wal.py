"""The embedded SQLite database runs with write-ahead logging: a reader is served while a writer
holds its transaction open (the web's pages while a worker records a match), and the online
backup still takes everything committed, the log's pages included."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from devtools.parts import manage, platform_env


def test_the_platforms_sqlite_database_logs_ahead_and_readers_never_wait(
    tmp_path: Path,
) -> None:
    path = tmp_path / "arena.sqlite3"
    env = platform_env(tmp_path, f"sqlite:///{path}")
    manage(env, "migrate", "-v0")
    writer = sqlite3.connect(path, timeout=0, isolation_level=None)
    reader = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        assert writer.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        writer.execute("CREATE TABLE probe (name TEXT)")
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("INSERT INTO probe VALUES ('writer')")
        # A rollback journal would refuse this (``database is locked``) once the writer
        # commits its pages; the log serves the last committed state meanwhile.
        assert reader.execute("SELECT COUNT(*) FROM probe").fetchone()[0] == 0
        writer.execute("COMMIT")
        assert reader.execute("SELECT COUNT(*) FROM probe").fetchone()[0] == 1
        # What the log holds is in the backup (arena_backup uses the online backup API).
        copy = sqlite3.connect(tmp_path / "copy.sqlite3")
        reader.backup(copy)
        assert copy.execute("SELECT name FROM probe").fetchall() == [("writer",)]
        copy.close()
    finally:
        writer.close()
        reader.close()

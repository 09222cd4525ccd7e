"""Backing up and restoring the database (docs/operations.md, "Backup and restore").

Everything the platform keeps is in its database: accounts, submissions and their sources,
matches, their stored logs (replays), ratings. PostgreSQL is dumped with ``pg_dump -Fc`` (a
consistent snapshot while the site runs) and restored with ``pg_restore``; the SQLite default is
copied with SQLite's online backup API (consistent while web and workers write).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from django.db import connections


class BackupError(Exception):
    """A backup or restore that could not be done; the message says what to do."""


def _database(alias: str = "default") -> dict[str, Any]:
    return dict(connections[alias].settings_dict)


def _pg_env(db: dict[str, Any]) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PGHOST=str(db.get("HOST") or ""),
        PGPORT=str(db.get("PORT") or ""),
        PGUSER=str(db.get("USER") or ""),
        PGDATABASE=str(db.get("NAME") or ""),
    )
    if db.get("PASSWORD"):
        env["PGPASSWORD"] = str(db["PASSWORD"])
    return {k: v for k, v in env.items() if v != "" or not k.startswith("PG")}


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    for candidate in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True):
        return str(candidate)
    raise BackupError(f"{name} is not installed: install PostgreSQL's client tools")


def _run(argv: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)  # noqa: S603
    if done.returncode != 0:
        raise BackupError(f"{Path(argv[0]).name} failed: {done.stderr.strip()[-2000:]}")


def database_backup(*, target: Path, alias: str = "default") -> Path:
    """Write a backup of the live database to ``target``; returns it."""
    db = _database(alias)
    target.parent.mkdir(parents=True, exist_ok=True)
    if db["ENGINE"].endswith("sqlite3"):
        partial = target.with_name(target.name + ".partial")
        source = sqlite3.connect(str(db["NAME"]), timeout=30)
        try:
            copy = sqlite3.connect(str(partial))
            try:
                with copy:
                    source.backup(copy)  # SQLite's online backup: consistent while others write
            finally:
                copy.close()
        finally:
            source.close()
        partial.replace(target)
        return target
    if db["ENGINE"].endswith("postgresql"):
        _run([_tool("pg_dump"), "-Fc", "--no-owner", "-f", str(target)], _pg_env(db))
        return target
    raise BackupError(f"no backup procedure for the {db['ENGINE']} engine")


def database_restore(*, source: Path, alias: str = "default") -> None:
    """Replace the database's contents with the backup at ``source``.

    Stop the web and the workers first (a restore under their feet mixes two states); restore
    into a fresh database, then start them again.
    """
    if not source.is_file():
        raise BackupError(f"{source} is not a file: give the path a backup was written to")
    db = _database(alias)
    connections[alias].close()
    if db["ENGINE"].endswith("sqlite3"):
        backup = sqlite3.connect(str(source))
        try:
            target = sqlite3.connect(str(db["NAME"]), timeout=30)
            try:
                with target:
                    backup.backup(target)
            finally:
                target.close()
        finally:
            backup.close()
        return
    if db["ENGINE"].endswith("postgresql"):
        _run(
            [
                _tool("pg_restore"),
                "--clean",
                "--if-exists",
                "--no-owner",
                "--single-transaction",
                "-d",
                str(db["NAME"]),
                str(source),
            ],
            _pg_env(db),
        )
        return
    raise BackupError(f"no restore procedure for the {db['ENGINE']} engine")

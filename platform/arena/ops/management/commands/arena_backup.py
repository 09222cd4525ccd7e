"""``manage.py arena_backup FILE``: a consistent backup of the live database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from arena.ops.backup import BackupError, database_backup


class Command(BaseCommand):
    help = (
        "Back up the database while the site runs (PostgreSQL: pg_dump -Fc; SQLite: the "
        "online backup API) to FILE."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path, help="where to write the backup")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            path = database_backup(target=options["file"])
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"backup written to {path} ({path.stat().st_size:,} bytes)")

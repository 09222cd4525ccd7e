"""``manage.py arena_restore FILE``: replace the database's contents with a backup."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from arena.ops.backup import BackupError, database_restore


class Command(BaseCommand):
    help = (
        "Restore a backup written by arena_backup into this database (stop the web and the "
        "workers first; a fresh, empty database is best)."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path, help="the backup to restore")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            database_restore(source=options["file"])
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"restored {options['file']}")

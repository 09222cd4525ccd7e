"""``manage.py arena_setup``: migrate and put the house bots on every ladder (idempotent).

``make run`` does this itself; production runs it once per deploy (deploy/compose.yaml).
"""

from __future__ import annotations

from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand

from arena.catalog.services import demo_data_load


class Command(BaseCommand):
    """Migrate, then load the demo data once."""

    help = "Migrate the database and put every game's house bots on its ladder (once)."

    def handle(self, *args: Any, **options: Any) -> None:
        """Run both steps."""
        call_command("migrate", interactive=False, verbosity=0)
        added = demo_data_load()
        self.stdout.write(f"database ready; {added} house bots added to the ladders")

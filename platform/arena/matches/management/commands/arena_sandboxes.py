"""``manage.py arena_sandboxes``: the sandbox containers on this Docker engine, by instance.

Each deployment (``ARENA_INSTANCE_ID``) removes its own containers by itself and never touches
another's. What no deployment removes is for an operator to decide: the containers of an
instance that is gone for good (``--remove-instance ID``) and those made before containers
carried an instance (``--remove-unlabelled``; only once no deployment of that older version runs
on this engine).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.matches.sandboxing import (
    sandboxes_by_instance,
    sandboxes_remove_instance,
    sandboxes_remove_unlabelled,
)


class Command(BaseCommand):
    """List the sandbox containers by instance; remove a gone instance's, or the unlabelled."""

    help = (
        "List the agent sandbox containers on this Docker engine by platform instance; "
        "--remove-instance ID removes those of an instance that is gone, --remove-unlabelled "
        "those made before containers carried an instance."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """``--remove-instance ID`` and ``--remove-unlabelled``."""
        parser.add_argument(
            "--remove-instance",
            metavar="ID",
            help="remove every container of this instance (never this deployment's own)",
        )
        parser.add_argument(
            "--remove-unlabelled",
            action="store_true",
            help="remove the containers that carry no instance (made by an older version)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """List, or remove what the options name."""
        if options["remove_instance"]:
            try:
                removed = sandboxes_remove_instance(instance=options["remove_instance"])
            except ValueError as exc:
                raise CommandError(str(exc)) from exc
            self.stdout.write(f"removed {removed} containers of {options['remove_instance']}")
        if options["remove_unlabelled"]:
            removed = sandboxes_remove_unlabelled()
            self.stdout.write(f"removed {removed} containers made before instances existed")
        if options["remove_instance"] or options["remove_unlabelled"]:
            return
        own = settings.ARENA_INSTANCE_ID
        counts = sandboxes_by_instance()
        if not counts:
            self.stdout.write("no sandbox containers on this engine (or no engine answers)")
        for instance, count in counts.items():
            label = instance or "(none: made before instances existed)"
            mine = "  <- this deployment" if instance == own else ""
            self.stdout.write(f"{label}\t{count}{mine}")

#!/usr/bin/env python3
"""Django's command line for Agent Arena. Puts ``platform/`` (a source root) on ``sys.path``."""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def main() -> None:
    """Run a Django management command with ``arena.settings``."""
    for path in (str(ROOT), str(ROOT / "platform")):
        if path not in sys.path:
            sys.path.insert(0, path)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

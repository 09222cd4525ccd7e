"""The ``arena`` command line (``arena_cli.main``) and what its subcommand modules share."""

from __future__ import annotations

import argparse
from typing import Any


def add_command(subparsers: Any, name: str, summary: str, doc: str | None) -> Any:
    """Add the subcommand ``name``: ``summary`` in ``arena --help``, ``doc`` (its module's
    docstring) as its own ``--help`` shows it, line breaks kept."""
    return subparsers.add_parser(
        name, help=summary, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )

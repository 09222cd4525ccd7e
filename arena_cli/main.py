"""``arena``: the command line for participants and operators.

Subcommands live in their own modules, each with ``register(subparsers)`` that adds its parser
and sets ``func``: ``games`` and ``simulate`` (house bots in-process), ``strength`` (house-bot
strength tables), ``playthroughs`` (golden recordings), ``play`` (a local match in the sandbox),
``submit`` (upload through the JSON API), ``challenge`` (an unrated match against someone's
agent, through the API), ``tournament`` (list, show, enter, withdraw). This package imports
``games`` and ``sandbox`` but never Django.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

#: Modules that register subcommands, in the order ``arena --help`` lists them.
COMMAND_MODULES = (
    "arena_cli.games_cmd",
    "arena_cli.strength_cmd",
    "arena_cli.playthrough_cmd",
    "arena_cli.play_cmd",
    "arena_cli.submit_cmd",
    "arena_cli.challenge_cmd",
    "arena_cli.tournament_cmd",
)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every available subcommand."""
    parser = argparse.ArgumentParser(
        prog="arena", description="Agent Arena: play, test and submit game-playing agents."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue  # that subcommand is not part of this tree yet
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `arena play ... | head`: the reader left; say nothing more and exit quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())

"""``arena playthroughs``: record (``--write``) or check the golden playthroughs of the games.

    arena playthroughs [--game ID] [--write]

Without ``--write`` it replays every recording and lists those that differ (exit 1 if any);
with ``--write`` it records them again into ``games/<game>/playthroughs/``. Record only after a
deliberate rule change, and bump the game's ``version`` with it: the test that replays the
recordings fails on any difference while the version stays the same.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from arena_cli import add_command
from games.core import UnknownGameError, available_game_ids, get_game_spec
from games.core.playthrough import replay, write_playthroughs


def register(subparsers: Any) -> None:
    """Add ``playthroughs``."""
    cmd = add_command(
        subparsers,
        "playthroughs",
        "check the golden playthroughs, or record them again (--write)",
        __doc__,
    )
    cmd.add_argument("--game", help="one game id (default: every game)")
    cmd.add_argument("--write", action="store_true", help="record the playthroughs again")
    cmd.set_defaults(func=cmd_playthroughs)


def cmd_playthroughs(args: argparse.Namespace) -> int:
    """``arena playthroughs``."""
    games = [args.game] if args.game else available_game_ids()
    for game_id in games:
        try:
            spec = get_game_spec(game_id)
        except UnknownGameError as exc:
            print(f"arena playthroughs: {exc}", file=sys.stderr)
            return 2
        if not spec.playthroughs and args.game:
            print(
                f"arena playthroughs: {game_id} has no playthroughs listed; add them to "
                f"ARENA_GAME in its package's __init__.py",
                file=sys.stderr,
            )
            return 2
    differing = 0
    for game_id in games:
        if args.write:
            for path in write_playthroughs(game_id):
                print(f"wrote {path}")
            continue
        for playthrough in get_game_spec(game_id).playthroughs:
            result = replay(game_id, playthrough)
            status = "same" if not result.diff else "STALE" if result.stale else "DIFFERS"
            differing += bool(result.diff)
            print(f"{status:<8} {result.path}")
            if result.diff:
                print(result.diff)
    if differing:
        print(
            f"arena playthroughs: {differing} recording(s) differ. If the rules changed on "
            "purpose, bump the game's version and run `arena playthroughs --write`.",
            file=sys.stderr,
        )
        return 1
    return 0

"""``arena tournament list|show|enter|withdraw --server URL``: tournaments through the JSON API.

Standard library only (``submit_cmd.api_request``). ``list`` and ``show`` need no token (``show``
prints the standings once the results are published, or earlier for an entrant with a token);
``enter`` and ``withdraw`` need a token (``--token``, ``ARENA_TOKEN`` or ``arena login``'s).
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from typing import Any

from arena_cli.credentials import NO_SERVER, server_and_token
from arena_cli.submit_cmd import SERVER_ERRORS, add_account_options, api_request, server_failure


def _line(t: dict[str, Any]) -> str:
    return (
        f"#{t['id']} {t['name']} (edition {t['edition']}) · {t['game']} · {t['status']} · "
        f"{t['entrants']} entrant(s) · entries close {t['entry_closes']} · "
        f"results {t['publish_at']}"
    )


def _time_control(t: dict[str, Any]) -> str:
    if not t.get("timed", True):
        return "untimed"
    if t.get("turn_budget_s") is None:  # a server from before tournaments chose their clock
        return "timed"
    return f"timed · {t['turn_budget_s']:g} s a turn (models {t['model_move_budget_s']:g} s)"


def _publication(t: dict[str, Any]) -> str:
    """When the results come out: at the set time, or after the last game once that time has
    passed (a running tournament is never told a time already gone)."""
    at = str(t.get("publish_at") or "")
    try:
        due = datetime.fromisoformat(at) <= datetime.now(UTC)
    except (TypeError, ValueError):
        due = False
    status = t.get("status")
    if status == "cancelled":
        return "cancelled: there are no results to publish"
    if status == "upcoming" or not due:
        return f"results are published at {at}"
    if status == "finished":
        return "every game is over: the results are published within seconds"
    return f"results are published when the last game is over (the set time, {at}, has passed)"


def _show(t: dict[str, Any]) -> None:
    print(_line(t))
    print(f"time control: {_time_control(t)}")
    if not t.get("results_visible"):
        print(_publication(t))
        return
    progress = t.get("progress") or {}
    print(f"games over: {progress.get('games_over')} of {progress.get('games')}")
    print(f"{'#':>3}  {'agent':<24} {'owner':<16} {'points':>6}  {'95% range':<11} {'Buchholz':>8}")
    for row in t.get("standings") or []:
        band = f"{row['score_low']:.1f}-{row['score_high']:.1f}"
        print(
            f"{row['rank']:>3}  {row['agent'][:24]:<24} {row['owner'][:16]:<16} "
            f"{row['score']:>6g}  {band:<11} {row['buchholz']:>8g}"
        )


def run(args: argparse.Namespace) -> int:
    """One action; exit 1 with the server's reason when it refuses."""
    server, token = server_and_token(args.server, args.token)
    if not server:
        print(NO_SERVER.format(command="tournament"), file=sys.stderr)
        return 2
    args.server = server
    try:
        if args.action == "list":
            for t in api_request(args.server, "GET", "/api/tournaments", token=token):
                print(_line(t))
        elif args.action == "show":
            _show(api_request(args.server, "GET", f"/api/tournaments/{args.id}", token=token))
        elif args.action == "enter":
            reply = api_request(
                args.server,
                "POST",
                f"/api/tournaments/{args.id}/entry",
                token=token,
                body={"agent": args.agent},
            )
            print(f"agent {reply['agent']} entered in tournament {reply['tournament']}")
        else:
            api_request(args.server, "DELETE", f"/api/tournaments/{args.id}/entry", token=token)
            print(f"entry withdrawn from tournament {args.id}")
    except SERVER_ERRORS as exc:
        return server_failure("tournament", args.server, exc)
    return 0


def register(subparsers: Any) -> None:
    """Add ``arena tournament``."""
    parser = subparsers.add_parser(
        "tournament",
        help="list, show, enter or withdraw from tournaments on a server",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("action", choices=["list", "show", "enter", "withdraw"])
    parser.add_argument("id", nargs="?", type=int, help="the tournament (not for list)")
    parser.add_argument("--agent", type=int, help="enter: the id of your agent")
    add_account_options(parser, sign_in=False)
    parser.set_defaults(func=_checked)


def _checked(args: argparse.Namespace) -> int:
    if args.action != "list" and args.id is None:
        print(f"arena tournament {args.action}: give the tournament's id", file=sys.stderr)
        return 2
    if args.action == "enter" and args.agent is None:
        print("arena tournament enter: give --agent <your agent's id>", file=sys.stderr)
        return 2
    return run(args)

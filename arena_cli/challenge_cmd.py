"""``arena challenge AGENT_ID --with SUBMISSION_ID --server URL``: challenge someone's agent.

An unrated match of your accepted submission against another user's public agent, through the
JSON API (standard library only). Prints the match's page, waits for it to end unless
``--no-wait``, and shows the result; the match page shows your agent's prints.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from arena_cli.credentials import NO_SERVER, server_and_token
from arena_cli.submit_cmd import (
    SERVER_ERRORS,
    add_account_options,
    api_request,
    get_token,
    server_failure,
)


def run(args: argparse.Namespace) -> int:
    """The subcommand."""
    given_server, token = server_and_token(args.server, args.token)
    if not given_server:
        print(NO_SERVER.format(command="challenge"), file=sys.stderr)
        return 2
    server = given_server.rstrip("/")
    try:
        if not token:
            if not (args.username and args.password):
                print(
                    "arena challenge: no API token. Copy yours from "
                    f"{server}/accounts/token/ and pass --token TOKEN or set ARENA_TOKEN "
                    "(or give --username and --password)",
                    file=sys.stderr,
                )
                return 2
            token = get_token(server, args.username, args.password)
        sent: dict[str, Any] = api_request(
            server,
            "POST",
            "/api/challenges",
            token=token,
            body={"submission": args.submission, "agent": args.agent},
        )
        match_id = sent["match"]
        waiting = "" if sent.get("sent", True) else " (it waits for your earlier challenges)"
        print(f"challenge sent: match {match_id}{waiting}")
        print(f"see it at {server}/matches/{match_id}/")
        if args.no_wait:
            return 0
        deadline = time.monotonic() + args.timeout
        while True:
            match: dict[str, Any] = api_request(
                server, "GET", f"/api/matches/{match_id}", token=token
            )
            if match["status"] in ("finished", "error") or time.monotonic() > deadline:
                break
            time.sleep(1.0)
    except SERVER_ERRORS as exc:
        return server_failure("challenge", server, exc)
    print(f"status: {match['status']}")
    for p in match.get("participants", []):
        print(f"  seat {p['seat']}: {p['agent']} ({p['owner']}): {p.get('outcome') or '-'}")
    if match.get("summary"):
        print(match["summary"])
    return 0 if match["status"] == "finished" else 1


def register(subparsers: Any) -> None:
    """Add ``arena challenge``."""
    parser = subparsers.add_parser(
        "challenge",
        help="challenge another user's agent (unrated)",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("agent", type=int, help="the id of the agent to challenge (its page URL)")
    parser.add_argument(
        "--with", dest="submission", type=int, required=True,
        help="the id of your accepted submission that plays",
    )  # fmt: skip
    add_account_options(parser)
    parser.add_argument("--no-wait", action="store_true", help="do not wait for the result")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait")
    parser.set_defaults(func=run)

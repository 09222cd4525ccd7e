"""``arena login`` and ``arena submit AGENT.py``: upload an agent through the JSON API.

Standard library only (urllib), no Django: participants run it from their own machines and CI.
``arena login --server URL --token TOKEN`` checks the token and remembers both
(``arena_cli.credentials``); ``arena submit`` uses them unless ``--server``/``--token`` (or
``ARENA_SERVER``/``ARENA_TOKEN``, or ``--username``/``--password``) say otherwise. It waits for
the self-play validation unless ``--no-wait``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from arena_cli.credentials import (
    credentials_forget,
    credentials_load,
    credentials_path,
    credentials_save,
)


class ApiError(Exception):
    """The server refused a request; ``str()`` is its reason."""

    def __init__(self, status: int, message: str, details: list[dict[str, Any]] | None = None):
        super().__init__(message)
        self.status = status
        self.details = details or []


#: What a call to the server may raise: its refusal, or no answer at all.
SERVER_ERRORS = (ApiError, urllib.error.URLError, OSError)


def server_failure(command: str, server: str, exc: Exception) -> int:
    """Say on stderr why ``arena <command>`` failed against ``server`` (one of
    ``SERVER_ERRORS``); the exit status, 1."""
    if isinstance(exc, ApiError):
        print(f"arena {command}: refused ({exc.status}): {exc}", file=sys.stderr)
    else:
        print(f"arena {command}: cannot reach {server}: {exc}", file=sys.stderr)
    return 1


def api_request(
    server: str,
    method: str,
    path: str,
    *,
    token: str | None = None,
    body: Any = None,
    data: bytes | None = None,
    content_type: str | None = None,
    timeout_s: float = 30.0,
) -> Any:
    """One API call; returns the decoded JSON (or the text for JSON lines)."""
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    if body is not None:
        data = json.dumps(body).encode()
        content_type = "application/json"
    if content_type:
        headers["Content-Type"] = content_type
    if not server.startswith(("http://", "https://")):
        raise ApiError(0, f"--server must be an http:// or https:// URL, not {server!r}")
    request = urllib.request.Request(  # noqa: S310 - the scheme is checked just above
        server.rstrip("/") + path, data=data, method=method, headers=headers
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310
            raw = response.read().decode("utf-8")
            kind = response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        text = exc.read().decode("utf-8", errors="replace")
        try:
            payload = json.loads(text)
        except ValueError:
            raise ApiError(exc.code, f"HTTP {exc.code}: {text[:200]}") from None
        raise ApiError(exc.code, payload.get("error", text), payload.get("details")) from None
    if "ndjson" in kind:
        return [json.loads(line) for line in raw.splitlines() if line.strip()]
    return json.loads(raw)


def get_token(server: str, username: str, password: str) -> str:
    """Exchange a username and password for the API token."""
    reply = api_request(
        server, "POST", "/api/token", body={"username": username, "password": password}
    )
    return str(reply["token"])


def upload(
    server: str,
    token: str,
    path: Path,
    name: str | None = None,
    *,
    models: list[str] | None = None,
    match_budget_usd: str = "0",
    day_budget_usd: str = "0",
) -> dict[str, Any]:
    """POST the file as multipart ``file`` (+ ``name``); returns the submission.

    With ``models`` (a list, empty for none) the version's models and budgets go in the same
    request, so its self-play already may call them (one ``models`` field a name)."""
    boundary = uuid.uuid4().hex
    fields: list[tuple[str, str]] = []
    if name:
        fields.append(("name", name))
    if models is not None:
        fields += [("models", m) for m in models] or [("models", "")]
        fields += [("match_budget_usd", match_budget_usd), ("day_budget_usd", day_budget_usd)]
    parts = []
    for key, value in fields:
        field = f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n'
        parts.append(f"{field}{value}\r\n".encode())
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{path.name}"\r\n'
        "Content-Type: text/x-python\r\n\r\n".encode()
        + path.read_bytes()
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    result: dict[str, Any] = api_request(
        server,
        "POST",
        "/api/submissions",
        token=token,
        data=b"".join(parts),
        content_type=f"multipart/form-data; boundary={boundary}",
    )
    return result


def wait_for_status(
    server: str, token: str, submission_id: int, timeout_s: float = 120.0
) -> dict[str, Any]:
    """Poll the submission until it is no longer pending (or the time runs out)."""
    deadline = time.monotonic() + timeout_s
    while True:
        submission: dict[str, Any] = api_request(
            server, "GET", f"/api/submissions/{submission_id}", token=token
        )
        if submission["status"] != "pending" or time.monotonic() > deadline:
            return submission
        time.sleep(1.0)


def submission_url(server: str, submission_id: int) -> str:
    """The submission's page on the server (status, validation log, training, ladder)."""
    return f"{server.rstrip('/')}/submissions/{submission_id}/"


def run(args: argparse.Namespace) -> int:
    """The subcommand."""
    path = Path(args.agent)
    if not path.is_file():
        print(f"arena submit: {path} is not a file", file=sys.stderr)
        return 2
    saved = credentials_load()
    args.server = args.server or os.environ.get("ARENA_SERVER") or saved.get("server")
    if not args.server:
        print(
            "arena submit: which server? Open its API token page (/accounts/token/ once signed "
            "in): it shows the `arena login --server URL --token TOKEN` command to run once; or "
            "pass --server URL",
            file=sys.stderr,
        )
        return 2
    try:
        token = args.token or os.environ.get("ARENA_TOKEN")
        # A remembered token is for the server it was given with, and no other.
        same_server = saved.get("server", "").rstrip("/") == args.server.rstrip("/")
        if not token and not (args.username and args.password) and same_server:
            token = saved.get("token")
        if not token:
            if not (args.username and args.password):
                print(
                    "arena submit: no API token. Sign in on the server and copy yours from "
                    f"{args.server.rstrip('/')}/accounts/token/, then run `arena login --server "
                    f"{args.server.rstrip('/')} --token TOKEN` once (or pass --token TOKEN, set "
                    "ARENA_TOKEN, or give --username and --password)",
                    file=sys.stderr,
                )
                return 2
            token = get_token(args.server, args.username, args.password)
        models = None if args.agent_model is None else [m for m in args.agent_model if m]
        submission = upload(
            args.server,
            token,
            path,
            args.name,
            models=models,
            match_budget_usd=args.match_budget_usd,
            day_budget_usd=args.day_budget_usd,
        )
        print(
            f"uploaded {submission['agent']} v{submission['version']} ({submission['game']}) "
            f"as submission {submission['id']}: {submission['status']}"
        )
        if models is not None:
            print(
                "it may call "
                + (", ".join(sorted(set(models))) or "no model")
                + f" (budget {args.match_budget_usd} USD a match, "
                f"{args.day_budget_usd} USD a day; change them with PUT "
                f"/api/submissions/{submission['id']}/models or on its page)"
            )
        print(f"see it at {submission_url(args.server, submission['id'])}")
        if args.no_wait:
            return 0
        submission = wait_for_status(args.server, token, submission["id"], args.timeout)
    except SERVER_ERRORS as exc:
        status = server_failure("submit", args.server, exc)
        for detail in exc.details if isinstance(exc, ApiError) else []:
            line = f"line {detail['line']}: " if detail.get("line") else ""
            print(f"  {line}{detail.get('message')} [rule: {detail.get('rule')}]", file=sys.stderr)
        return status
    print(f"status: {submission['status']}")
    if submission.get("detail"):
        print(submission["detail"])
    return 0 if submission["status"] == "accepted" else 1


def add_account_options(parser: argparse.ArgumentParser, *, sign_in: bool = True) -> None:
    """``--server`` and ``--token`` (by default: ``$ARENA_SERVER``/``$ARENA_TOKEN``, else
    ``arena login``'s) and, with ``sign_in``, ``--username`` and ``--password`` instead of a
    token."""
    parser.add_argument(
        "--server", help="e.g. http://127.0.0.1:8000 (default: $ARENA_SERVER, else `arena login`'s)"
    )
    parser.add_argument("--token", help="API token (default: $ARENA_TOKEN, else `arena login`'s)")
    if sign_in:
        parser.add_argument("--username")
        parser.add_argument("--password")


def register(subparsers: Any) -> None:
    """Add ``arena submit``."""
    parser = subparsers.add_parser(
        "submit", help="upload an agent to a server", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("agent", help="the agent's .py file")
    add_account_options(parser)
    parser.add_argument("--name", help="agent name (default: the file's name)")
    parser.add_argument("--no-wait", action="store_true", help="do not wait for validation")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds to wait")
    parser.add_argument(
        "--agent-model",
        action="append",
        metavar="NAME",
        help="a model the agent may call through its sandbox's gateway, metered to you, set "
        "with the upload so its self-play already may call it (repeatable; --agent-model '' "
        "for none; default: what the previous version had)",
    )
    parser.add_argument(
        "--match-budget-usd", default="0", help="with --agent-model: its budget per match (USD)"
    )
    parser.add_argument(
        "--day-budget-usd", default="0", help="with --agent-model: its budget per day (USD)"
    )
    parser.set_defaults(func=run)
    register_login(subparsers)


def run_login(args: argparse.Namespace) -> int:
    """``arena login``: check the token against the server, then remember both."""
    server = str(args.server).rstrip("/")
    token = args.token or os.environ.get("ARENA_TOKEN")
    try:
        if not token:
            if not (args.username and args.password):
                print(
                    f"arena login: give --token TOKEN (copy it from {server}/accounts/token/) or "
                    "--username and --password",
                    file=sys.stderr,
                )
                return 2
            token = get_token(server, args.username, args.password)
        me = api_request(server, "GET", "/api/me", token=token)
    except SERVER_ERRORS as exc:
        return server_failure("login", server, exc)
    username = str(me.get("username", "")) if isinstance(me, dict) else ""
    path = credentials_save(server=server, token=str(token), username=username)
    print(f"signed in to {server} as {username}; remembered in {path}")
    print("now: arena submit my_agent.py")
    return 0


def run_logout(args: argparse.Namespace) -> int:
    """``arena logout``: forget the remembered server and token."""
    if credentials_forget():
        print(f"forgot the server and token in {credentials_path()}")
    else:
        print("nothing was remembered")
    return 0


def register_login(subparsers: Any) -> None:
    """Add ``arena login`` and ``arena logout``."""
    login = subparsers.add_parser(
        "login",
        help="remember a server and your API token for `arena submit`",
        description="Check the token against the server and remember both (mode 0600).",
    )
    login.add_argument("--server", required=True, help="e.g. http://127.0.0.1:8000")
    login.add_argument("--token", help="API token (from the site's API token page)")
    login.add_argument("--username")
    login.add_argument("--password")
    login.set_defaults(func=run_login)
    logout = subparsers.add_parser("logout", help="forget what `arena login` remembered")
    logout.set_defaults(func=run_logout)

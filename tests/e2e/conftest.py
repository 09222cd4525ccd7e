"""The platform as it really runs: a Celery worker (with beat) as a subprocess on Redis, the web
server as a subprocess, PostgreSQL, and the sandbox backend the machine offers (docker with the
sandbox image, else the process backend)."""

from __future__ import annotations

import os
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from devtools.parts import (
    celery_command,
    free_port,
    manage,
    platform_env,
    runserver_command,
    start_process,
    stop_processes,
    wait_for_port,
    wait_http,
)
from tests.e2e.servers import redis_and_postgres


@dataclass
class Served:
    """A running web server of the platform: its URL and environment."""

    url: str
    env: dict[str, str]

    def manage(self, *args: str) -> str:
        """Run a management command against this platform's database."""
        return manage(self.env, *args)


@dataclass
class Stack(Served):
    """A running platform (web server and worker) and its log files."""

    logs: Path


def http_get(
    url: str, *, timeout_s: float, headers: dict[str, str] | None = None
) -> tuple[int, bytes, dict[str, str]]:
    """GET ``url`` from our own loopback server: status, body and headers, an error status too."""
    request = urllib.request.Request(url, headers=headers or {})  # noqa: S310 - loopback
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310
            return response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), dict(exc.headers)


@contextmanager
def platform_stack(*, exclude_roles: Sequence[str] = (), **settings: str) -> Iterator[Stack]:
    """Start Redis, PostgreSQL, a worker with beat and the web server (``settings`` added to
    their environment); stop them afterwards. The worker consumes every queue of the instance
    but those of ``exclude_roles`` (a test then starts that pool's worker itself)."""
    with redis_and_postgres() as (redis_url, db_url):
        var = Path(tempfile.mkdtemp(prefix="arena-e2e-"))
        env = platform_env(
            var,
            db_url,
            REDIS_URL=redis_url,
            **{"ARENA_SANDBOX_BACKEND": "auto", "ARENA_ALLOW_PROCESS_SANDBOX": "1", **settings},
        )
        manage(env, "arena_setup")
        port = free_port()
        logs = var / "logs"
        logs.mkdir()
        worker_log = (logs / "worker.log").open("wb")
        web_log = (logs / "web.log").open("wb")
        excluded = [f"{env['ARENA_INSTANCE_ID']}.{role}" for role in exclude_roles]
        worker = start_process(
            celery_command(
                "worker",
                "-B",
                # No -Q: the worker consumes every queue of its own instance (CELERY_TASK_QUEUES,
                # named after the stack's ARENA_INSTANCE_ID, not this test process's).
                *(["-X", ",".join(excluded)] if excluded else []),
                "--concurrency",
                "2",
                "--loglevel",
                "INFO",
                "-s",
                str(var / "beat-schedule"),
            ),
            env,
            worker_log,
        )
        web = start_process(runserver_command(port), env, web_log)
        try:
            # Generous: on a loaded host the system checks alone can take tens of seconds.
            assert wait_for_port(port, process=web), (logs / "web.log").read_text()
            wait_http(f"http://127.0.0.1:{port}/", process=web)
            yield Stack(url=f"http://127.0.0.1:{port}", env=env, logs=logs)
        finally:
            stop_processes(web, worker)
            worker_log.close()
            web_log.close()
            if os.environ.get("ARENA_E2E_KEEP_LOGS"):
                print(f"e2e logs kept in {logs}")


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    """The platform (``platform_stack``) with matchmaking every second.

    Per module, not per session: a live ladder keeps playing matches (and starting agent
    containers) until its worker stops, which must not overlap other tests.
    """
    with platform_stack(ARENA_MATCHMAKING_INTERVAL_S="1") as running:
        yield running

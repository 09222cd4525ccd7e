"""The platform as it really runs: a Celery worker (with beat) as a subprocess on Redis, the web
server as a subprocess, PostgreSQL, and the sandbox backend the machine offers (docker with the
sandbox image, else the process backend)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from devtools.parts import (
    ROOT,
    free_port,
    manage,
    platform_env,
    postgres_available,
    postgres_server,
    redis_available,
    redis_server,
    wait_for_port,
)
from tests.conftest import require_part


@dataclass
class Stack:
    """A running platform: its URL, environment and log files."""

    url: str
    env: dict[str, str]
    logs: Path

    def manage(self, *args: str) -> str:
        """Run a management command against this stack's database."""
        return manage(self.env, *args)


def _wait_http(url: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - our own loopback server
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer")


@contextmanager
def platform_stack(*, exclude_roles: Sequence[str] = (), **settings: str) -> Iterator[Stack]:
    """Start Redis, PostgreSQL, a worker with beat and the web server (``settings`` added to
    their environment); stop them afterwards. The worker consumes every queue of the instance
    but those of ``exclude_roles`` (a test then starts that pool's worker itself)."""
    require_part(redis_available(), "redis-server (apt-get install redis-server)")
    require_part(postgres_available(), "PostgreSQL server binaries (apt-get install postgresql)")
    with redis_server() as redis_url, postgres_server() as db_url:
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
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "arena.celery_app",
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
            ],
            env=env,
            cwd=ROOT,
            stdout=worker_log,
            stderr=subprocess.STDOUT,
        )
        web = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "manage.py"),
                "runserver",
                f"127.0.0.1:{port}",
                "--noreload",
                "--insecure",
            ],
            env=env,
            cwd=ROOT,
            stdout=web_log,
            stderr=subprocess.STDOUT,
        )
        try:
            # Generous: on a loaded host the system checks alone can take tens of seconds.
            assert wait_for_port(port, 120), (logs / "web.log").read_text()
            _wait_http(f"http://127.0.0.1:{port}/")
            yield Stack(url=f"http://127.0.0.1:{port}", env=env, logs=logs)
        finally:
            for proc in (web, worker):
                proc.terminate()
            for proc in (web, worker):
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
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

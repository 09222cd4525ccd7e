"""The log says what an operator acts on (settings ``LOGGING``, ``arena.log_filters``): a refused
request (the visitor got a clean 4xx saying why) leaves no record and no traceback, a server
error still does; a quiet worker writes no line per routine task; ``make run`` says once that it
runs as root instead of Celery's warning from every worker pool."""

from __future__ import annotations

import logging
import os
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from devtools.parts import celery_command, manage, platform_env, start_process, stop_processes
from tests.conftest import wait_for


def _records_an_operator_reads(caplog: Any) -> list[str]:
    return [
        f"{r.name} {r.levelname}: {r.getMessage()}"
        for r in caplog.records
        if r.levelno >= logging.WARNING or r.exc_info
    ]


@pytest.mark.django_db
def test_a_refused_request_leaves_no_record_or_traceback(make_user: Any, caplog: Any) -> None:
    from arena.matches.services import match_create
    from arena.submissions.services import house_submission_ensure

    private = match_create(
        kind="training",
        submissions=[
            house_submission_ensure(game="simple-card", bot=bot) for bot in ("random", "highest")
        ],
    )
    bob = Client()
    bob.force_login(make_user("bob"))
    caplog.set_level(logging.DEBUG)
    for client in (Client(), bob):
        assert client.get(f"/matches/{private.pk}/").status_code == 403
        assert client.get(f"/api/matches/{private.pk}").status_code == 403
        assert client.get(f"/api/matches/{private.pk}/log").status_code == 403
    assert Client().get("/matches/999999/").status_code == 404
    assert Client().post("/api/submissions", {}).status_code == 401
    assert _records_an_operator_reads(caplog) == []


def test_a_server_error_is_still_logged() -> None:
    from arena.log_filters import RefusedRequests

    def record(status: int) -> logging.LogRecord:
        made = logging.LogRecord("django.request", logging.ERROR, __file__, 1, "x", (), None)
        made.status_code = status
        return made

    keep = RefusedRequests()
    assert not keep.filter(record(403)) and not keep.filter(record(404))
    assert keep.filter(record(500)) and keep.filter(record(503))
    assert logging.getLogger("django.request").isEnabledFor(logging.ERROR)


def test_routine_task_lines_are_below_info_and_failures_are_not() -> None:
    # "Task ... received", "Task ... succeeded in 0.01s", "Scheduler: Sending due task ...".
    for name in ("celery.app.trace", "celery.worker.strategy", "celery.beat"):
        assert not logging.getLogger(name).isEnabledFor(logging.INFO), name
        assert logging.getLogger(name).isEnabledFor(logging.ERROR), name


@pytest.mark.slow
def test_a_quiet_worker_writes_no_line_per_task() -> None:
    """A real worker with beat on the demo ladder (house bots playing each other): matches are
    played and maintenance runs every second, and the log holds none of it."""
    var = Path(tempfile.mkdtemp(prefix="arena-logs-"))
    database = var / "arena.sqlite3"
    env = platform_env(
        var,
        f"sqlite:///{database}",
        ARENA_SANDBOX_BACKEND="process",
        ARENA_ALLOW_PROCESS_SANDBOX="1",
        ARENA_SANDBOX_POOL_SIZE="0",
        ARENA_MATCHMAKING_INTERVAL_S="1",
        ARENA_TOURNAMENT_TICK_S="1",
        ARENA_LOG_LEVEL="INFO",
        ARENA_LOG_TASKS="0",  # the default (the tests' platforms turn it on)
        # What `make run` sets for its pools once it has said it runs as root.
        ARENA_ROOT_WARNED="1",
    )
    manage(env, "arena_setup")
    log_path = var / "worker.log"
    with log_path.open("wb") as log:
        worker = start_process(
            celery_command(
                "worker", "-B", "--concurrency", "2", "--loglevel", "INFO", "-s", str(var / "b")
            ),
            env,
            log,
        )
        try:

            def finished() -> int:
                with sqlite3.connect(database, timeout=30) as db:
                    row = db.execute(
                        "select count(*) from matches_match where status = 'finished'"
                    ).fetchone()
                return int(row[0]) if row and row[0] >= 3 else 0

            wait_for(finished, timeout_s=240, what="three demo matches finished", every_s=1.0)
            time.sleep(3)  # a few more maintenance passes
        finally:
            stop_processes(worker)
    text = log_path.read_text(errors="replace")
    assert "ready." in text, text[-3000:]
    for routine in (" received", "succeeded in", "Sending due task"):
        assert routine not in text, f"{routine!r} is logged:\n{text[-3000:]}"
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        assert "superuser privileges" not in text, text[:3000]
    assert "Traceback" not in text, text

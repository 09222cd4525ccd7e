"""The SQL one request runs, for the tests that hold a page's query count flat and the
benchmarks that report and explain it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

R = TypeVar("R")


def run_recording_queries(fetch: Callable[[], R]) -> tuple[R, list[tuple[str, Any]]]:
    """Call ``fetch`` (a request through Django's test client) and return what it returned and
    the queries it executed, in order, as ``(sql, params)``.

    Not ``CaptureQueriesContext``: a request resets the connection's query log when it starts.
    """
    from django.db import connection

    executed: list[tuple[str, Any]] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        executed.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        response = fetch()
    return response, executed

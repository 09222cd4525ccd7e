"""The hostile-reply and log-writer tests again on PostgreSQL, which refuses what SQLite lets
through (``Infinity`` in JSON, NUL in text): the tests of ``test_lifecycle.py`` run in a pytest
of their own against a throw-away PostgreSQL server (pytest-django's database is per session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import rerun_on_postgres


@pytest.mark.slow
@pytest.mark.postgres
def test_hostile_replies_and_the_writer_on_postgres(tmp_path: Path) -> None:
    out = rerun_on_postgres(
        tmp_path,
        "tests/arena/workflows/test_lifecycle.py",
        "-k",
        "hostile or writer or sweeper or redelivery or expected_database",
    )
    print(out[-300:])

"""The hostile-reply and log-writer tests again on PostgreSQL, which refuses what SQLite lets
through (``Infinity`` in JSON, NUL in text): the tests of ``test_lifecycle.py`` run in a pytest
of their own against a throw-away PostgreSQL server (pytest-django's database is per session)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from devtools.parts import ROOT, platform_env, postgres_available, postgres_server
from tests.conftest import require_part


@pytest.mark.slow
@pytest.mark.postgres
def test_hostile_replies_and_the_writer_on_postgres(tmp_path: Path) -> None:
    require_part(postgres_available(), "PostgreSQL server binaries (apt-get install postgresql)")
    with postgres_server() as url:
        env = platform_env(tmp_path, url, ARENA_TEST_DB_VENDOR="postgresql")
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "tests/arena/workflows/test_lifecycle.py",
                "-q",
                "-p",
                "no:cacheprovider",
                "-k",
                "hostile or writer or sweeper or redelivery or expected_database",
            ],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout
    print(done.stdout[-300:])

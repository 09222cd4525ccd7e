"""The Redis and PostgreSQL servers an end-to-end test starts for itself (``devtools.parts``),
skipped locally, failed in CI, where the machine lacks them (``tests.conftest.require_part``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from devtools.parts import postgres_available, postgres_server, redis_available, redis_server
from tests.conftest import require_part


def require_redis() -> None:
    """Skip (or in CI fail) the calling test unless redis-server is installed."""
    require_part(redis_available(), "redis-server (apt-get install redis-server)")


def require_postgres() -> None:
    """Skip (or in CI fail) the calling test unless PostgreSQL's server binaries are installed."""
    require_part(postgres_available(), "PostgreSQL server binaries (apt-get install postgresql)")


@contextmanager
def postgres() -> Iterator[str]:
    """A throw-away PostgreSQL server of the test's own: its database URL."""
    require_postgres()
    with postgres_server() as db_url:
        yield db_url


@contextmanager
def redis_and_postgres() -> Iterator[tuple[str, str]]:
    """A throw-away Redis and PostgreSQL of the test's own: the Redis URL and the database URL."""
    require_redis()
    require_postgres()
    with redis_server() as redis_url, postgres_server() as db_url:
        yield redis_url, db_url

"""Fixtures for the command line's tests: the platform's (eager Celery, users, sources) for the
commands that talk to Django's live server, and the sandbox backends for ``arena play``.

They are defined once, in tests/arena/conftest.py and tests/sandbox/conftest.py; importing them
here makes pytest offer them to this folder too.
"""

from __future__ import annotations

from tests.arena.conftest import committed, eager_celery, make_user, starter_source
from tests.sandbox.conftest import backend

__all__ = ["backend", "committed", "eager_celery", "make_user", "starter_source"]

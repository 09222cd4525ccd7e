"""Root test configuration.

Tests that need a real part (Docker, Redis, PostgreSQL, Chromium) call ``require_part``: locally
they skip with the reason, under ``CI=true`` they fail, so CI can never go green by skipping.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def pytest_configure(config: pytest.Config) -> None:
    """The platform in this process is an instance of its own (``devtools/parts.py``,
    ``run_instance_id``), never the one ``ARENA_INSTANCE_ID`` or the database would name: the
    settings were read before this file (pytest-django loads them first), so set it here."""
    from django.conf import settings

    from devtools.parts import run_instance_id

    if settings.configured:
        from arena import settings as arena_settings

        for name, value in arena_settings.instance_settings(run_instance_id()).items():
            setattr(settings, name, value)
        from arena.celery_app import app

        if app.configured:  # read before this hook: give Celery the run's queues too
            app.conf.update(
                task_default_queue=settings.CELERY_TASK_DEFAULT_QUEUE,
                task_routes=settings.CELERY_TASK_ROUTES,
                task_queues=settings.CELERY_TASK_QUEUES,
            )


#: Fixtures that start or need a real part, and the mark each implies: a test that uses one is
#: marked so, and ``make test-fast``'s ``-m "not ..."`` leaves it out like a marked one.
PART_FIXTURES = {"driver": "browser", "redis_url": "redis"}
#: The same for helpers a test calls: a test that re-runs its file on PostgreSQL needs it.
PART_HELPERS = {"rerun_on_postgres": "postgres"}


def _mark_parts(item: pytest.Item) -> None:
    code = getattr(getattr(item, "function", None), "__code__", None)
    called = set(code.co_names) if code is not None else set()
    wanted = [PART_FIXTURES.get(f) for f in getattr(item, "fixturenames", ())]
    wanted += [mark for helper, mark in PART_HELPERS.items() if helper in called]
    for mark in wanted:
        if mark and not item.get_closest_marker(mark):
            item.add_marker(getattr(pytest.mark, mark))
    if "real_model" in item.path.name and not item.get_closest_marker("model"):
        item.add_marker(pytest.mark.model)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``make test`` runs the suite in two pytest-xdist processes (``--dist loadgroup``): each
    file is one group, so a module's fixtures (a platform stack, a model server) start once. The
    end-to-end and real-model files (minutes each) go first, then the other slow ones, so the
    long ones are shared out before the short ones fill the gaps (the Makefile keeps this order
    with ``--no-loadscope-reorder``). Without xdist the marks do nothing; only the order changes.

    ``tryfirst``: xdist reads the group marks in its own hook of this name."""
    weight: dict[object, int] = {}
    for item in items:
        _mark_parts(item)
        heavy = item.get_closest_marker("e2e") or "real_model" in item.path.name
        rank = 0 if heavy else 1 if item.get_closest_marker("slow") else 2
        weight[item.path] = min(weight.get(item.path, 2), rank)
    items.sort(key=lambda item: weight[item.path])  # stable: the file order is kept within
    for item in items:
        item.add_marker(pytest.mark.xdist_group(str(item.path.relative_to(config.rootpath))))


@pytest.fixture(autouse=True)
def _no_sandbox_container_left(request: pytest.FixtureRequest) -> Iterator[None]:
    """After every Docker test: this process left no sandbox container behind."""
    yield
    if request.node.get_closest_marker("docker") is None:
        return
    from games.core.errors import PlatformError
    from sandbox.engine import ENGINE_ERRORS, current

    try:
        current().client().api.ping()
    except (PlatformError, *ENGINE_ERRORS):
        return  # no engine: the test skipped (or failed) for that already
    assert_no_container_left()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Remove what this run's instances left on the Docker engine (a killed worker's containers,
    say), and nothing else: other runs and deployments share the engine. Says how many."""
    from devtools.parts import run_instance_id
    from sandbox import PROCESS_INSTANCE, containers_by_instance, remove_containers
    from sandbox.engine import wait_for_removals

    run = run_instance_id()
    try:
        wait_for_removals()  # what this process is removing in the background is not left
        found = containers_by_instance()
    except Exception:  # no engine: nothing to clean
        return
    ours = [
        container
        for instance, containers in found.items()
        if instance in (run, PROCESS_INSTANCE) or instance.startswith(f"{run}-")
        for container in containers
    ]
    if ours:
        print(f"\nremoving {len(ours)} sandbox containers this test run left")
        remove_containers(ours)


def assert_no_container_left() -> None:
    """Fail when this process has sandbox containers it did not remove (its warm pool's and
    reuse cache's idle ones aside); remove them first, so the test that left them fails and not
    every Docker test after it, and say what each one was (name, state, the end of its log)."""
    from sandbox.engine import ENGINE_ERRORS, current
    from sandbox.pool import own_containers

    left = own_containers()
    if not left:
        return
    api = current().client().api
    described = []
    for container in left:
        try:
            log = api.logs(container["Id"], tail=20).decode("utf-8", "replace").strip()
        except ENGINE_ERRORS as exc:
            log = f"(no log: {exc})"
        names = ",".join(container.get("Names") or ["?"])
        labels = container.get("Labels") or {}
        described.append(
            f"{names} {container['Id'][:12]} created {container.get('Created')} "
            f"{container.get('Status')} pool={labels.get('arena.sandbox.pool', '0')} log: {log!r}"
        )
    from sandbox import remove_containers

    remove_containers([container["Id"] for container in left])
    raise AssertionError(
        f"{len(left)} sandbox container(s) left behind (now removed):\n" + "\n".join(described)
    )


def require_part(available: bool, reason: str) -> None:
    """Skip (locally) or fail (in CI) the calling test when a real part it needs is missing."""
    if available:
        return
    if IN_CI:
        pytest.fail(f"CI must provide this part: {reason}", pytrace=False)
    pytest.skip(reason)


def wait_for(check: Callable[[], T], *, timeout_s: float, what: str, every_s: float = 0.1) -> T:
    """Poll ``check`` until it returns something true, and return that; after ``timeout_s`` (a
    generous bound, never a measurement) fail saying ``what`` was awaited and the last value."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(
                f"gave up after {timeout_s} s waiting for {what} (last: {value!r})"
            )
        time.sleep(every_s)


def described(check: Callable[[], object]) -> str:
    """An awaited condition in the test's own words (its source line), for a failure message."""
    try:
        return inspect.getsource(check).strip()
    except (OSError, TypeError):
        return repr(check)


def rerun_on_postgres(tmp_path: Path, test_file: str, *args: str, timeout_s: float = 600) -> str:
    """Run ``test_file``'s tests (``args`` for pytest, e.g. ``-k``) again in a pytest of their
    own against a throw-away PostgreSQL server (pytest-django's database is per session), with
    ``ARENA_TEST_DB_VENDOR=postgresql``; fail with their output unless they pass. Their output."""
    from devtools.parts import ROOT, platform_env, postgres_available, postgres_server

    require_part(postgres_available(), "PostgreSQL server binaries (apt-get install postgresql)")
    with postgres_server() as url:
        env = platform_env(tmp_path, url, ARENA_TEST_DB_VENDOR="postgresql")
        done = subprocess.run(
            [sys.executable, "-m", "pytest", test_file, "-q", "-p", "no:cacheprovider", *args],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout, done.stdout[-1000:]
    return done.stdout

"""How the platform creates sandboxes: limits from the settings, the worker's warm pool, the
worker concurrency that follows the cores."""

from __future__ import annotations

import os
from typing import Any

import pytest

from sandbox import pool
from tests.conftest import require_part


def test_the_limits_come_from_the_settings(settings: Any) -> None:
    from arena.matches.sandboxing import sandbox_limits

    settings.ARENA_SANDBOX_FREEZE = "pause"
    settings.ARENA_SANDBOX_CGROUP_ROOT = "/host/sys/fs/cgroup"
    limits = sandbox_limits(freeze_idle=False)
    assert (limits.freeze_method, limits.cgroup_root, limits.freeze_idle) == (
        "pause",
        "/host/sys/fs/cgroup",
        False,
    )


def test_the_worker_concurrency_follows_the_cores() -> None:
    from django.conf import settings

    if os.environ.get("ARENA_WORKER_CONCURRENCY"):
        pytest.skip("ARENA_WORKER_CONCURRENCY is set in this environment")
    assert len(os.sched_getaffinity(0)) == settings.CELERY_WORKER_CONCURRENCY


def test_no_pool_without_docker_or_with_size_zero(settings: Any) -> None:
    from arena.matches.sandboxing import drain_pool, start_pool

    settings.ARENA_SANDBOX_POOL_SIZE = 2
    start_pool()  # the tests' backend is the process one: no docker, no pool
    assert pool.current() is None
    settings.ARENA_SANDBOX_BACKEND = "docker"
    settings.ARENA_SANDBOX_POOL_SIZE = 0
    start_pool()
    assert pool.current() is None
    assert drain_pool() == 0


@pytest.mark.docker
def test_a_worker_process_fills_its_pool_and_drains_it(settings: Any) -> None:
    from arena.matches import sandboxing

    from sandbox.docker_backend import docker_ready, own_containers

    require_part(docker_ready(settings.ARENA_SANDBOX_IMAGE), "needs Docker and the sandbox image")
    settings.ARENA_SANDBOX_BACKEND = "docker"
    settings.ARENA_SANDBOX_POOL_SIZE = 2
    sandboxing.sandbox_backend.cache_clear()
    try:
        sandboxing.start_pool()
        warm = pool.current()
        assert warm is not None and warm.wait_ready(60)
        assert warm.limits == sandboxing.sandbox_limits()
        sandboxing.start_pool()  # again: the running pool stays
        assert pool.current() is warm
    finally:
        assert sandboxing.drain_pool() == 2
        sandboxing.sandbox_backend.cache_clear()
    assert pool.current() is None
    assert own_containers() == []

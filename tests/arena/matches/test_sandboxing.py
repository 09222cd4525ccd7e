"""How the platform creates sandboxes: limits from the settings, the worker's warm pool, the
worker concurrency that follows the cores."""

from __future__ import annotations

import os
from typing import Any

import pytest

from sandbox import pool
from tests.conftest import assert_no_container_left, require_part, wait_for


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

    from sandbox.engine import docker_ready

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
    assert_no_container_left()


@pytest.mark.docker
@pytest.mark.django_db
def test_the_reaper_removes_the_sandboxes_of_a_match_that_is_over(
    settings: Any, make_user: Any
) -> None:
    """Even while the worker process that made them lives on (the sweeper ended the match);
    and never another instance's, whose match of the same number is its own business."""
    from arena.matches import sandboxing
    from arena.matches.models import Match
    from arena.matches.services import match_create
    from arena.submissions.services import submission_create

    from games.core import get_game_spec
    from sandbox import create_handle, match_containers
    from sandbox.engine import docker_client, docker_ready

    require_part(docker_ready(settings.ARENA_SANDBOX_IMAGE), "needs Docker and the sandbox image")
    settings.ARENA_SANDBOX_BACKEND = "docker"
    sandboxing.sandbox_backend.cache_clear()
    source = get_game_spec("simple-card").starter_source()
    agents = [
        submission_create(owner=make_user(name), source=source, name="agent")
        for name in ("ann", "bob")
    ]
    over, running = (match_create(kind="ranked", submissions=agents) for _ in range(2))
    instance = settings.ARENA_INSTANCE_ID
    other = f"{instance}-neighbour"
    handles = {}
    try:
        for match in (over, running):
            handle = sandboxing.make_handle(agents[0], freeze_idle=False, match_id=match.pk)
            handle.start(game_id="simple-card", timeout_s=30)
            handles[match.pk] = handle
        # A neighbour on the same engine playing its own match with the finished one's number.
        neighbour = create_handle(
            source,
            name="neighbour",
            limits=sandboxing.sandbox_limits(),
            match=str(over.pk),
            instance=other,
        )
        neighbour.start(game_id="simple-card", timeout_s=30)
        handles[0] = neighbour
        ids = {pk: h.container_id for pk, h in handles.items()}  # type: ignore[attr-defined]
        # The containers are named after their match in the background.
        wait_for(
            lambda: set(match_containers(instance=instance)) >= {ids[over.pk], ids[running.pk]}
            and ids[0] in match_containers(instance=other),
            timeout_s=60,
            what="the sandboxes to be named after their matches",
        )
        mine = match_containers(instance=instance)
        assert {mine[ids[over.pk]], mine[ids[running.pk]]} == {str(over.pk), str(running.pk)}
        assert ids[0] not in mine, "another instance's container was listed as this one's"
        Match.objects.filter(pk=over.pk).update(status=Match.Status.FINISHED)
        Match.objects.filter(pk=running.pk).update(status=Match.Status.RUNNING)
        assert sandboxing.sandboxes_reap() >= 1
        left = match_containers(instance=instance)
        assert ids[over.pk] not in left, "the finished match's sandbox is still there"
        assert ids[running.pk] in left, "the reaper took a running match's sandbox"
        assert ids[0] in match_containers(instance=other), "the reaper took a neighbour's sandbox"
        state = docker_client().api.inspect_container(ids[0])["State"]
        assert state["Running"] and not state["OOMKilled"], f"the neighbour was hurt: {state}"
    finally:
        for handle in handles.values():
            handle.close()
        sandboxing.sandbox_backend.cache_clear()


def test_only_an_active_accepted_submission_reuses_its_containers(
    settings: Any, make_user: Any
) -> None:
    """The reuse key is the submission's own (never shared); a submission off its ladder gets
    none, and its idle containers are dropped; the setting turns reuse (and the supervisor) off."""
    from arena.matches.sandboxing import reuse_key, sandbox_limits
    from arena.submissions.models import Submission
    from arena.submissions.services import submission_create

    from games.core import get_game_spec
    from sandbox import reuse

    source = get_game_spec("simple-card").starter_source()
    ann, bob = (
        submission_create(owner=make_user(name), source=source, name="agent")
        for name in ("ann", "bob")
    )
    assert reuse_key(ann) is None  # pending: its validation runs in a container of its own
    Submission.objects.filter(pk__in=[ann.pk, bob.pk]).update(
        status=Submission.Status.ACCEPTED, active=True
    )
    ann.refresh_from_db()
    bob.refresh_from_db()
    assert reuse_key(ann) is not None and reuse_key(ann) != reuse_key(bob)
    assert sandbox_limits().supervised
    discarded: list[str] = []
    cache = reuse.current()
    original = cache.discard
    cache.discard = lambda key: discarded.append(key) or 0  # type: ignore[method-assign]
    try:
        key = reuse_key(ann)
        Submission.objects.filter(pk=ann.pk).update(active=False)
        ann.refresh_from_db()
        assert reuse_key(ann) is None
        assert discarded == [key]
    finally:
        cache.discard = original  # type: ignore[method-assign]
    settings.ARENA_SANDBOX_REUSE = False
    assert reuse_key(bob) is None
    assert not sandbox_limits().supervised


@pytest.mark.docker
def test_a_sandbox_image_built_from_another_harness_is_said_at_start(
    settings: Any, caplog: Any
) -> None:
    """An image left from before a harness change cannot talk to this controller (every match
    would fail): the worker says so, naming `make image`, as it decides its sandbox."""
    import logging

    from arena.matches import sandboxing

    from sandbox.engine import docker_ready

    require_part(docker_ready(settings.ARENA_SANDBOX_IMAGE), "needs Docker and the sandbox image")
    settings.ARENA_SANDBOX_BACKEND = "docker"
    caplog.set_level(logging.WARNING)
    try:
        sandboxing.sandbox_backend.cache_clear()
        sandboxing.sandbox_backend()
        assert not [r for r in caplog.records if "make image" in r.getMessage()]
        settings.ARENA_SANDBOX_IMAGE = "agent-arena-sandbox-base:bookworm"  # no harness label
        sandboxing.sandbox_backend.cache_clear()
        sandboxing.sandbox_backend()
        said = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
        assert said and "make image" in said[0] and "bookworm" in said[0], said
    finally:
        sandboxing.sandbox_backend.cache_clear()

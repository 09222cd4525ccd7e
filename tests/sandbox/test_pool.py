"""The warm pool: started containers with idle harnesses, one agent each, never leaked."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from games.core import play_match
from sandbox import (
    PROCESS_INSTANCE,
    SandboxLimits,
    create_handle,
    drain_warm_pool,
    pool,
    start_warm_pool,
)
from sandbox.container_config import POOL_LABEL
from sandbox.engine import docker_client, wait_for_removals
from sandbox.instance import INSTANCE_LABEL
from tests.conftest import assert_no_container_left
from tests.sandbox.conftest import PLAY_HIGHEST, agent_source, require_docker

pytestmark = pytest.mark.docker


@pytest.fixture
def warm() -> Iterator[pool.WarmPool]:
    require_docker()
    start_warm_pool(SandboxLimits(), 2)
    current = pool.current()
    assert current is not None
    assert current.wait_ready(60), "the warm pool did not fill"
    yield current
    drain_warm_pool()
    assert_no_container_left()


def _ids(handles: list) -> list[str]:
    return [h.container_id for h in handles]


def test_a_match_takes_pooled_containers_and_removes_them(warm: pool.WarmPool) -> None:
    idle = warm.idle_ids
    handles = [
        create_handle(agent_source(PLAY_HIGHEST), name=f"s{i}", limits=SandboxLimits())
        for i in (0, 1)
    ]
    assert set(_ids(handles)) == idle  # both came ready from the pool
    info = docker_client().api.inspect_container(handles[0].container_id)
    assert info["Config"]["Labels"][POOL_LABEL] == "1"
    assert info["Config"]["Labels"][INSTANCE_LABEL] == PROCESS_INSTANCE
    assert info["Name"].startswith(f"/arena-{PROCESS_INSTANCE}-pool-")
    record = play_match("simple-card", handles, seed=3)
    assert [str(s.reason) for s in record.seats] == ["normal", "normal"]
    assert record.seats[0].name == "s0"
    wait_for_removals()
    gone = docker_client().api.containers(all=True, filters={"id": list(idle)})
    assert gone == []  # used for one agent, then destroyed
    assert warm.wait_ready(60)
    assert warm.idle_ids.isdisjoint(idle)  # refilled with new containers, never reused ones


def test_a_container_serves_one_agent_only(warm: pool.WarmPool) -> None:
    first = create_handle(agent_source(PLAY_HIGHEST), name="one", limits=SandboxLimits())
    first.start(game_id="simple-card", timeout_s=10)
    first.close()
    assert warm.wait_ready(60)
    second = create_handle(agent_source(PLAY_HIGHEST), name="two", limits=SandboxLimits())
    try:
        assert second.container_id not in (None, first.container_id)
    finally:
        second.close()


def test_other_container_limits_get_a_fresh_container(warm: pool.WarmPool) -> None:
    idle = warm.idle_ids
    handle = create_handle(
        agent_source(PLAY_HIGHEST), name="big", limits=SandboxLimits(mem_limit_mb=300)
    )
    try:
        assert handle.container_id is None  # not taken from a pool made for other limits
        handle.start(game_id="simple-card", timeout_s=10)
        assert handle.container_id not in idle
    finally:
        handle.close()
    # Only the controller's own settings may differ: freezing off still takes a pooled one.
    unfrozen = create_handle(
        agent_source(PLAY_HIGHEST), name="u", limits=SandboxLimits(freeze_idle=False)
    )
    try:
        assert unfrozen.container_id in idle
        assert unfrozen.freeze_method is None
    finally:
        unfrozen.close()


def test_another_instance_never_gets_a_pooled_container(warm: pool.WarmPool) -> None:
    idle = warm.idle_ids
    other = f"{PROCESS_INSTANCE}-other"
    handle = create_handle(
        agent_source(PLAY_HIGHEST), name="other", limits=SandboxLimits(), instance=other
    )
    try:
        assert handle.container_id is None  # this pool serves its own instance only
        handle.start(game_id="simple-card", timeout_s=10)
        assert handle.container_id not in idle
        labels = docker_client().api.inspect_container(handle.container_id)["Config"]["Labels"]
        assert labels[INSTANCE_LABEL] == other
    finally:
        handle.close()
    assert warm.idle_ids == idle


def test_draining_removes_every_idle_container(warm: pool.WarmPool) -> None:
    idle = warm.idle_ids
    assert len(idle) == 2
    assert drain_warm_pool() == 2
    assert pool.current() is None
    assert docker_client().api.containers(all=True, filters={"id": list(idle)}) == []


def test_a_dead_pool_container_is_never_handed_out(warm: pool.WarmPool) -> None:
    idle = sorted(warm.idle_ids)
    docker_client().api.kill(idle[0])
    docker_client().api.wait(idle[0], timeout=10)
    handles = [
        create_handle(agent_source(PLAY_HIGHEST), name=f"s{i}", limits=SandboxLimits())
        for i in (0, 1)
    ]
    try:
        for handle in handles:
            handle.start(game_id="simple-card", timeout_s=10)  # each one loads: none was dead
        assert idle[0] not in _ids(handles)
    finally:
        for handle in handles:
            handle.close()

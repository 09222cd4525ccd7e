"""The docker backend sets every limit from ``SandboxLimits`` and never blames agents for Docker."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator

import docker
import pytest
import requests

from games.core import InProcessAgentHandle, PlatformError, play_match
from games.simple_card.bots import HighestBot
from sandbox import (
    PROCESS_INSTANCE,
    SandboxLimits,
    create_handle,
    detect_backend,
    engine,
    remove_orphans,
)
from sandbox.container_config import EXPIRES_LABEL, LABEL, OWNER_LABEL, owner
from sandbox.docker_handle import DockerAgentHandle
from sandbox.instance import INSTANCE_LABEL
from sandbox.seccomp import DENIED_SYSCALLS, build_profile
from sandbox.socket_channel import CHANNEL_MOUNT, CHANNEL_PATH
from tests.sandbox.conftest import (
    PLAY_HIGHEST,
    agent_source,
    own_container_labels,
    require_docker,
)

pytestmark = pytest.mark.docker

CUSTOM = SandboxLimits(
    mem_limit_mb=200,
    cpus=0.5,
    pids_limit=40,
    tmpfs_size_mb=12,
    shm_size_mb=4,
    nofile_limit=100,
    fsize_limit_mb=3,
    log_max_size_kb=32,
    freeze_idle=False,
)


@pytest.fixture
def docker_handle() -> Iterator[DockerAgentHandle]:
    require_docker()
    handle = DockerAgentHandle(agent_source(PLAY_HIGHEST), name="x", limits=CUSTOM)
    handle.start(game_id="simple-card", timeout_s=10)
    yield handle
    handle.close()


def test_every_limit_reaches_the_container(docker_handle: DockerAgentHandle) -> None:
    info = engine.docker_client().api.inspect_container(docker_handle.container_id)
    host, config = info["HostConfig"], info["Config"]
    mib = 1024 * 1024
    assert host["NetworkMode"] == "none"
    assert host["ReadonlyRootfs"] is True
    assert host["Tmpfs"] == {"/tmp": "rw,noexec,nosuid,nodev,size=12m,mode=1777"}
    assert config["User"] == "65534:65534"
    assert host["CapDrop"] == ["ALL"] and not host["CapAdd"]
    assert "no-new-privileges:true" in host["SecurityOpt"]
    seccomp = [o for o in host["SecurityOpt"] if o.startswith("seccomp=")]
    assert json.loads(seccomp[0].removeprefix("seccomp=")) == build_profile()
    assert host["Memory"] == 200 * mib and host["MemorySwap"] == 200 * mib
    assert host["NanoCpus"] == 500_000_000
    assert host["PidsLimit"] == 40
    ulimits = {u["Name"]: (u["Soft"], u["Hard"]) for u in host["Ulimits"]}
    assert ulimits == {"nofile": (100, 100), "fsize": (3 * mib, 3 * mib), "core": (0, 0)}
    # A supervised container's pid 1 is the harness's supervisor, which reaps like an init.
    assert host["Init"] is (not CUSTOM.supervised)
    if CUSTOM.socket_channel:
        # Its channel: the unix socket in a directory of its own, mounted read-only, no stdin.
        assert config["Cmd"][-3:] == ["--supervise", "--channel", CHANNEL_PATH]
        assert [(m["Type"], m["Destination"], m["RW"]) for m in info["Mounts"]] == [
            ("bind", CHANNEL_MOUNT, False)
        ]
        assert config["OpenStdin"] is False
    else:
        assert config["Cmd"][-1] == (
            "--supervise" if CUSTOM.supervised else "/opt/arena/harness.py"
        )
        assert info["Mounts"] == []
    assert host["IpcMode"] == "private"
    assert host["ShmSize"] == 4 * mib
    assert host["LogConfig"] == {
        "Type": "json-file",
        "Config": {"max-size": "32k", "max-file": "1"},
    }
    assert config["Labels"][LABEL] == "1"
    # Which instance made it: in a label, and in its name for the people who list containers.
    assert config["Labels"][INSTANCE_LABEL] == PROCESS_INSTANCE
    assert info["Name"].startswith(f"/arena-{PROCESS_INSTANCE}-agent-")
    # No variable of the worker's environment: only what the image declares.
    assert all(v.split("=")[0] in {"PATH", "HOSTNAME"} for v in config["Env"] or [])


def test_the_limits_hold_inside(docker_handle: DockerAgentHandle) -> None:
    # The kernel's view from inside, read by the agent's own process.
    probe = agent_source(
        """
def on_turn(self, state):
    import os, resource
    limits = {n: resource.getrlimit(getattr(resource, 'RLIMIT_' + n))[0]
              for n in ('NOFILE', 'FSIZE', 'CORE')}
    mounts = open('/proc/mounts').read().splitlines()
    root = [l for l in mounts if ' / ' in l][0]
    return {'uid': os.getuid(), 'limits': limits,
            'tmp': [l for l in mounts if ' /tmp ' in l][0],
            'root_ro': root.split()[3].startswith('ro')}
"""
    )
    handle = create_handle(probe, name="probe", backend="docker", limits=CUSTOM)
    handle.start(game_id="simple-card", timeout_s=10)
    try:
        result = handle.call("on_turn", {}, 5).result
    finally:
        handle.close()
    assert result["uid"] == 65534
    assert result["limits"] == {"NOFILE": 100, "FSIZE": 3 * 1024 * 1024, "CORE": 0}
    assert {"noexec", "nosuid", "nodev"} <= set(result["tmp"].split()[3].split(","))
    assert result["root_ro"] is True


def test_a_missing_image_is_a_platform_error_that_says_make_image() -> None:
    require_docker()
    limits = SandboxLimits(image="agent-arena-sandbox:does-not-exist")
    handle = create_handle(agent_source(PLAY_HIGHEST), name="x", backend="docker", limits=limits)
    with pytest.raises(PlatformError, match="make image"):
        handle.start(game_id="simple-card", timeout_s=10)
    handle.close()
    record = play_match(
        "simple-card",
        [
            create_handle(agent_source(PLAY_HIGHEST), name="x", backend="docker", limits=limits),
            InProcessAgentHandle(HighestBot, "highest"),
        ],
    )
    assert record.platform_error and "make image" in record.platform_error
    assert all(s.outcome is None for s in record.seats)  # nobody is charged for it


def test_an_engine_that_is_gone_is_a_platform_error(monkeypatch: pytest.MonkeyPatch) -> None:
    gone = docker.DockerClient(
        base_url="unix:///nonexistent/docker.sock", version="1.41", timeout=2
    )
    monkeypatch.setattr(engine.current(), "_client", gone)
    handle = create_handle(agent_source(PLAY_HIGHEST), name="x", backend="docker")
    with pytest.raises(PlatformError, match="could not create"):
        handle.start(game_id="simple-card", timeout_s=10)
    handle.close()
    assert detect_backend() == "process"
    assert remove_orphans() == 0


def test_detect_backend_finds_docker_with_the_image() -> None:
    require_docker()
    assert detect_backend() == "docker"
    assert detect_backend(SandboxLimits(image="agent-arena-sandbox:does-not-exist")) == "process"


def test_remove_orphans_removes_this_instances_leftovers_only() -> None:
    require_docker()
    api = engine.docker_client().api
    image = SandboxLimits().image
    expired = {
        LABEL: "1",
        INSTANCE_LABEL: PROCESS_INSTANCE,
        OWNER_LABEL: "elsewhere:1",
        EXPIRES_LABEL: str(int(time.time()) - 1),
    }
    live = {
        LABEL: "1",
        INSTANCE_LABEL: PROCESS_INSTANCE,
        OWNER_LABEL: owner(),
        EXPIRES_LABEL: str(int(time.time()) + 3600),
    }
    # Expired, its owner gone: an orphan, but another instance's, so not this one's to remove.
    others = {**expired, INSTANCE_LABEL: f"{PROCESS_INSTANCE}-other"}
    # Made before containers carried an instance: only an operator's command removes those.
    old = {key: value for key, value in expired.items() if key != INSTANCE_LABEL}
    created = []
    try:
        for labels in (expired, live, others, old):
            cid = api.create_container(image, command=["sleep", "60"], labels=labels)["Id"]
            api.start(cid)
            created.append(cid)
        unlabelled = api.create_container(image, command=["sleep", "60"])["Id"]
        created.append(unlabelled)
        remove_orphans()
        remaining = {c["Id"] for c in api.containers(all=True)}
        assert created[0] not in remaining  # expired
        assert created[1] in remaining  # its worker (this process) is alive
        assert created[2] in remaining  # another instance's
        assert created[3] in remaining  # no instance: older than instances
        assert unlabelled in remaining  # not a sandbox
        assert remove_orphans(instance=f"{PROCESS_INSTANCE}-other") == 1
        assert created[2] not in {c["Id"] for c in api.containers(all=True)}
    finally:
        for cid in created:
            with contextlib.suppress(docker.errors.APIError):  # gone, or going
                api.remove_container(cid, force=True)


def test_a_zombie_owner_is_gone_and_a_stopped_process_leaves_no_container_in_any_state() -> None:
    """Where PID 1 reaps nothing, a killed worker's pool processes stay zombies: their containers
    must count as orphaned. And a supervisor that stopped its workers removes every container
    they made, running or exited, of its instance only."""
    import os
    import socket

    from sandbox import remove_process_containers
    from sandbox.reaper import process_gone

    child = os.fork()
    if child == 0:
        os._exit(0)
    try:
        wait_for_zombie = time.monotonic() + 30
        while not process_gone(child) and time.monotonic() < wait_for_zombie:
            time.sleep(0.05)
        assert process_gone(child), "an exited, unreaped child is gone"
        assert not process_gone(os.getpid())
        require_docker()
        api = engine.docker_client().api
        image = SandboxLimits().image
        host = socket.gethostname()
        fresh = str(int(time.time()) + 3600)

        def labels(pid: int, instance: str = PROCESS_INSTANCE) -> dict[str, str]:
            return {
                LABEL: "1",
                INSTANCE_LABEL: instance,
                OWNER_LABEL: f"{host}:{pid}",
                EXPIRES_LABEL: fresh,
            }

        created = []
        try:
            for owner_labels, command in (
                (labels(child), ["sleep", "60"]),  # running, its owner a zombie
                (labels(child), ["true"]),  # exited at once, like a drained pool's harness
                (labels(os.getpid()), ["sleep", "60"]),  # another (live) process's
                (labels(child, f"{PROCESS_INSTANCE}-other"), ["true"]),  # another instance's
            ):
                cid = api.create_container(image, command=command, labels=owner_labels)["Id"]
                api.start(cid)
                created.append(cid)
            assert remove_process_containers(instance=PROCESS_INSTANCE, pids={child}) == 2
            remaining = {c["Id"] for c in api.containers(all=True)}
            assert created[0] not in remaining and created[1] not in remaining
            assert created[2] in remaining and created[3] in remaining
        finally:
            for cid in created:
                with contextlib.suppress(docker.errors.APIError):
                    api.remove_container(cid, force=True)
    finally:
        os.waitpid(child, 0)


def test_a_removal_the_engine_refuses_for_a_moment_is_tried_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``remove(force=True)`` racing the container's own exit gets a 409 from the engine; the
    container must still go (it was left behind, exited, on a busy CI host)."""
    require_docker()
    api = engine.docker_client().api
    # A container of this process's instance, alive and not expired: no sweep's to remove.
    labels = own_container_labels()
    cid = api.create_container(SandboxLimits().image, command=["true"], labels=labels)["Id"]
    api.start(cid)
    real_remove = api.remove_container
    refusals = []

    def refuse_once(container: str, **kwargs: object) -> None:
        if not refusals:
            refusals.append(container)
            response = requests.Response()
            response.status_code, response.reason, response.url = 409, "Conflict", "/remove"
            raise docker.errors.APIError(
                "Conflict",
                response=response,
                explanation=f"Could not kill running container {container}, cannot remove - "
                f"Container {container} is not running",
            )
        real_remove(container, **kwargs)

    monkeypatch.setattr(api, "remove_container", refuse_once)
    monkeypatch.setattr(engine, "REMOVE_RETRY_PAUSES_S", (0.05,))
    try:
        engine.current().remove_now(cid)
        assert refusals == [cid]
        assert not api.containers(all=True, filters={"id": cid})
    finally:
        with contextlib.suppress(docker.errors.NotFound):
            real_remove(cid, force=True)


def test_seccomp_profile_names_every_call_of_design_section_4() -> None:
    denied = {name for group in DENIED_SYSCALLS.values() for name in group}
    for name in (
        "ptrace",
        "process_vm_readv",
        "process_vm_writev",
        "io_uring_setup",
        "keyctl",
        "bpf",
        "perf_event_open",
        "userfaultfd",
    ):
        assert name in denied
    socket_rules = [
        r for r in build_profile()["syscalls"] if r["names"] == ["socket", "socketpair"]
    ]

    def denied_family(family: int) -> bool:
        for rule in socket_rules:
            (arg,) = rule["args"]
            if (arg["op"] == "SCMP_CMP_EQ" and family == arg["value"]) or (
                arg["op"] == "SCMP_CMP_GT" and family > arg["value"]
            ):
                return True
        return False

    # AF_UNIX, AF_INET (the gateway on lo), AF_INET6; netlink (16), packet (17), vsock (40) not.
    assert [f for f in range(64) if not denied_family(f)] == [1, 2, 10]
    assert denied_family(2**32 + 2)


def test_the_leak_check_names_a_left_container_and_removes_it() -> None:
    """The check after every docker test fails on a container this process left, says what it
    was, and removes it, so only the test that left it fails, not every docker test after it."""
    from tests.conftest import assert_no_container_left

    require_docker()
    api = engine.docker_client().api
    labels = own_container_labels()
    command = ["sh", "-c", "echo left-behind-marker; exit 1"]
    cid = api.create_container(SandboxLimits().image, command=command, labels=labels)["Id"]
    try:
        api.start(cid)
        api.wait(cid, timeout=30)
        with pytest.raises(AssertionError) as failed:
            assert_no_container_left()
        assert cid[:12] in str(failed.value)
        assert "left-behind-marker" in str(failed.value)
        assert not api.containers(all=True, filters={"id": cid})
        assert_no_container_left()  # nothing left now
    finally:
        with contextlib.suppress(docker.errors.NotFound):
            api.remove_container(cid, force=True)

"""Two platforms on one Docker engine, each playing its own ranked ladder, never touch each other's
sandboxes.

Each platform (its own SQLite database, broker folder and ``ARENA_INSTANCE_ID``) runs a real
Celery worker and beat with the docker sandbox; their match numbers overlap (both count from 1),
so a reaper that went by match number alone would kill the other's agents. Each one's periodic
reaper runs every second, its orphan sweep at every worker start and on demand, and the second
platform's worker starts (and sweeps) while the first plays. Neither may lose a container: every
match of both ends normally (no seat "crashed"), and containers of a third instance and one made
before instances existed (both past their expiry, their owner gone: orphans by every rule) are
still there after both platforms swept.
"""

from __future__ import annotations

import contextlib
import secrets
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from devtools.parts import manage, platform_env, run_instance_id
from sandbox.limits import SANDBOX_IMAGE
from tests.conftest import require_part, wait_for
from tests.e2e.ladder import REAP, REAP_MATCHES, SETUP, STOP_LADDER, Worker, report, shell
from tests.e2e.test_fault_injection import _docker_ready

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.docker]

AGENTS = 4
#: Ranked matches each platform must finish while the other plays too.
MATCHES = 8
#: Generous bounds on a busy CI host, never measurements.
PLAY_S = 300.0
SETTLE_S = 180.0
IMAGE = SANDBOX_IMAGE


class Platform:
    """One deployment: its database, its worker and beat."""

    def __init__(self, name: str, root: Path) -> None:
        self.var = root / name
        self.var.mkdir()
        self.env = platform_env(self.var, f"sqlite:///{self.var / 'arena.sqlite3'}")
        self.env.update(
            ARENA_SANDBOX_BACKEND="docker",
            ARENA_MATCHMAKING_INTERVAL_S="1",
            ARENA_SWEEP_INTERVAL_S="1",
        )
        self.instance = self.env["ARENA_INSTANCE_ID"]
        manage(self.env, "migrate", "-v0")
        shell(self.env, SETUP.format(agents=AGENTS))
        self.worker = Worker(self.env, self.var)
        self.beat: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.beat = self.worker.beat()
        self.worker.start()
        self.worker.wait_ready()

    def stop(self) -> None:
        self.worker.stop()
        if self.beat is not None:
            self.beat.terminate()
            self.beat.wait(timeout=30)

    def finished(self) -> int:
        return int(report(self.env)["finished_ranked"])

    def sweep(self) -> None:
        """Both of its clean-ups, on demand: the orphan sweep and the match reaper."""
        shell(self.env, REAP)
        shell(self.env, REAP_MATCHES)

    def settle(self) -> dict[str, Any]:
        shell(self.env, STOP_LADDER)
        state: dict[str, Any] = {}

        def settled() -> bool:
            state.update(report(self.env))
            return not state["unfinished"]

        wait_for(settled, timeout_s=SETTLE_S, what=f"{self.instance}'s matches to end", every_s=2)
        return state


def _containers_of(instance: str) -> list[dict[str, Any]]:
    from sandbox.engine import docker_client

    found = docker_client().api.containers(
        all=True, filters={"label": [f"arena.instance={instance}"]}
    )
    return list(found)


@contextlib.contextmanager
def _orphans_of_others() -> Iterator[list[str]]:
    """Two orphans by every rule (expired, owner gone, bound to match 1), that are neither
    platform's: one of a third instance, one made before instances existed."""
    from sandbox.engine import docker_client

    api = docker_client().api
    gone = f"{socket.gethostname()}:{2**22 + 1}"  # above pid_max's ceiling: never a process
    common = {
        "arena.sandbox": "1",
        "arena.sandbox.owner": gone,
        "arena.sandbox.expires": str(int(time.time()) - 60),
    }
    neighbour = f"{run_instance_id()}-neighbour"
    made = []
    try:
        for labels, name in (
            ({**common, "arena.instance": neighbour}, f"arena-{neighbour}-match-1-"),
            (common, "arena-match-1-"),
        ):
            created = api.create_container(
                IMAGE,
                command=["sleep", "3600"],
                labels=labels,
                name=name + secrets.token_hex(6),
                network_disabled=True,
            )
            api.start(created["Id"])
            made.append(created["Id"])
        yield made
    finally:
        for container_id in made:
            with contextlib.suppress(Exception):
                api.remove_container(container_id, force=True)


def test_two_platforms_on_one_engine_keep_their_own_sandboxes() -> None:
    require_part(_docker_ready(), f"a Docker engine with the {IMAGE} image (make image)")
    root = Path(tempfile.mkdtemp(prefix="arena-two-instances-"))
    first, second = Platform("first", root), Platform("second", root)
    assert first.instance != second.instance
    try:
        first.start()
        wait_for(
            lambda: _containers_of(first.instance),
            timeout_s=PLAY_S,
            what="the first platform's sandboxes",
        )
        second.start()  # its worker's orphan sweep runs while the first one plays
        wait_for(
            lambda: first.finished() >= MATCHES and second.finished() >= MATCHES,
            timeout_s=PLAY_S,
            what=f"both platforms to finish {MATCHES} ranked matches each",
            every_s=2,
        )
        # Both sweeps of both platforms while both play, beside two orphans that are neither's.
        # (Made only now: a process of an older version on this engine, one that knows no
        # instances, would remove them as it would remove anyone's.)
        with _orphans_of_others() as others:
            for platform in (first, second):
                platform.sweep()
            from sandbox.engine import docker_client

            survivors = docker_client().api.containers(all=True, filters={"id": others})
            assert sorted(c["Id"] for c in survivors) == sorted(others), (
                "a platform removed a container that was not its own"
            )
        for platform in (first, second):
            names = [n for c in _containers_of(platform.instance) for n in c["Names"]]
            assert all(n.startswith(f"/arena-{platform.instance}-") for n in names), names
        first_state = first.settle()
        first.stop()
        second.sweep()  # the second sweeps while the first's containers are going
        second_state = second.settle()
        second.stop()
        for platform in (first, second):
            platform.sweep()
    finally:
        first.stop()
        second.stop()
    for state in (first_state, second_state):
        print("TWO-INSTANCES", state)
        assert state["finished_ranked"] >= MATCHES
        assert state["crashed"] == [], "an agent lost its container"
        assert state["by_status"].get("error", 0) == 0
        assert set(state["reasons"]) <= {"normal", "timeout"}, state["reasons"]
    for platform in (first, second):
        assert _containers_of(platform.instance) == [], "a stopped platform left containers"

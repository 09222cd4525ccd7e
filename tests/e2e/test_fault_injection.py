"""Fault injection: kill worker children and whole workers while a ranked ladder plays.

A real Celery worker (with beat) on Redis + PostgreSQL, then on the embedded filesystem broker +
SQLite, the docker sandbox, eight uploaded agents of different owners on one ladder. The test
kills a worker child (SIGKILL) or the whole worker (its process group) every few seconds,
restarting the worker as an operator would, then takes the agents off the ladder and lets it
settle. Every match must end, every finished ranked match be rated exactly once, the rating
chains and counters agree, and no sandbox container of the run be left.

Bounded: ``KILLS`` kills a few seconds apart plus a settle of at most ``SETTLE_S`` per broker.
The figures are printed (``-s`` shows them).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from devtools.parts import manage, platform_env
from sandbox.limits import SANDBOX_IMAGE
from tests.conftest import require_part, wait_for
from tests.e2e.ladder import REAP, SETUP, STOP_LADDER, Worker, report, shell
from tests.e2e.servers import redis_and_postgres

AGENTS = 8
KILLS = 8
KILL_EVERY_S = 5.0
SETTLE_S = 120.0
#: The sandbox image of this tree (`make image`); ARENA_SANDBOX_IMAGE names another build.
IMAGE = SANDBOX_IMAGE
#: Agents in Docker, and a sweeper quick to give a killed worker's matches back to the queue
#: (at most 3 attempts each), for the tests that kill workers under a running platform.
KILLED_WORKER_RECOVERY = {
    "ARENA_SANDBOX_BACKEND": "docker",
    "ARENA_SWEEP_INTERVAL_S": "2",
    "ARENA_MATCH_ORPHAN_GRACE_S": "3",
    "ARENA_MATCH_QUEUED_MAX_S": "15",
    "ARENA_MATCH_MAX_ATTEMPTS": "3",
}


def _containers(instance: str) -> list[str]:
    """The sandbox containers of this run's platform: selected by its instance label. (Not by
    image: ``--filter ancestor=<tag>`` matches every container of the same image id, whatever
    tag made it, so it counted, and removed, other runs' containers on a shared engine.)"""
    out = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"label=arena.instance={instance}"],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.split()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _orphans(instance: str) -> list[str]:
    """Containers of this run whose owning process is gone: what the reaper must remove while
    the worker runs (a live process's warm pool keeps idle containers on purpose)."""
    out = subprocess.run(
        [
            "docker",
            "ps",
            "-a",
            "--filter",
            f"label=arena.instance={instance}",
            "--format",
            '{{.ID}} {{.Label "arena.sandbox.owner"}}',
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    orphans = []
    for line in out.stdout.splitlines():
        cid, _, owner = line.partition(" ")
        pid = owner.rpartition(":")[2]
        if not pid.isdigit() or not _pid_alive(int(pid)):
            orphans.append(cid)
    return orphans


def _describe(container_ids: list[str]) -> list[str]:
    """Each container's name, state, creation, labels, and whether its owner process runs (what
    a failure must say to be understood)."""
    described = []
    for cid in container_ids:
        done = subprocess.run(
            [
                "docker",
                "inspect",
                "--format",
                "{{.Name}} {{.State.Status}} created={{.Created}} finished={{.State.FinishedAt}} "
                "{{json .Config.Labels}}",
                cid,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        text = done.stdout.strip() or f"gone ({done.stderr.strip()})"
        labels_json = text.partition(" {")[2]
        try:
            labels = json.loads("{" + labels_json) if labels_json else {}
        except ValueError:
            labels = {}
        owner = str(labels.get("arena.sandbox.owner", "")).rpartition(":")[2]
        if owner.isdigit():
            alive = _pid_alive(int(owner))
            try:
                command = Path(f"/proc/{owner}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                command = ""
            text += f" owner {owner} {'runs: ' + command if alive else 'is gone'}"
        described.append(f"{cid}: {text}")
    return described


def _sandbox_lines(log: Path) -> list[str]:
    """What the worker's log says about removing, draining or reaping containers."""
    words = ("remov", "drain", "warm pool", "orphan", "sandbox", "Timed out", "exited with")
    text = log.read_text(encoding="utf-8", errors="replace")
    return [line for line in text.splitlines() if any(w in line for w in words)][-40:]


@contextmanager
def _removing_leftovers(instance: str) -> Iterator[None]:
    """Whatever happens, remove this run's platform's containers afterwards, and only those."""
    try:
        yield
    finally:
        for cid in _containers(instance):
            subprocess.run(["docker", "rm", "-f", cid], capture_output=True, check=False)


@contextmanager
def _broker(kind: str, var: Path) -> Iterator[dict[str, str]]:
    if kind == "redis":
        with redis_and_postgres() as (redis_url, db_url):
            yield platform_env(var, db_url, REDIS_URL=redis_url)
    else:
        yield platform_env(var, f"sqlite:///{var / 'arena.sqlite3'}")


def _docker_ready() -> bool:
    try:
        done = subprocess.run(
            ["docker", "image", "inspect", IMAGE], capture_output=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.docker
@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.parametrize(
    "broker",
    ["redis", "filesystem"],
)
def test_a_ladder_survives_killed_workers(broker: str) -> None:
    require_part(_docker_ready(), f"a Docker engine with the {IMAGE} image (make image)")
    var = Path(tempfile.mkdtemp(prefix=f"arena-fault-{broker}-"))
    with _broker(broker, var) as env, _removing_leftovers(env["ARENA_INSTANCE_ID"]):
        instance = env["ARENA_INSTANCE_ID"]
        env.update(KILLED_WORKER_RECOVERY, ARENA_MATCHMAKING_INTERVAL_S="1")
        manage(env, "migrate", "-v0")
        shell(env, SETUP.format(agents=AGENTS))
        worker = Worker(env, var)
        beat = worker.beat()
        worker.start()
        kills = {"child": 0, "worker": 0}
        began = time.monotonic()
        try:
            worker.wait_ready()
            for i in range(KILLS):
                time.sleep(KILL_EVERY_S)  # the fault schedule, not a wait for anything
                if i % 3 == 2:
                    worker.kill_all()
                    kills["worker"] += 1
                    time.sleep(1.0)
                    worker.start()  # the operator restarts it
                    # Kill only a worker that runs: a pool process killed before its worker is
                    # ready makes Celery give up the whole worker, which no operator does.
                    worker.wait_ready()
                elif worker.kill_child(i):
                    kills["child"] += 1
            shell(env, STOP_LADDER)
            state: dict[str, Any] = {}

            def settled() -> bool:
                # Every match ended and the reaper removed what killed processes left.
                state.update(report(env), orphans=_orphans(instance))
                return not state["unfinished"] and not state["orphans"]

            with contextlib.suppress(AssertionError):  # what is left is reported below
                wait_for(
                    settled,
                    timeout_s=SETTLE_S,
                    what="every match to end and the dead processes' containers to go",
                    every_s=3,
                )
        finally:
            worker.stop()
            beat.terminate()
            beat.wait(timeout=30)
        # The warm pool keeps idle containers while its worker runs: count after it stopped,
        # once the orphan sweep that every worker start runs has run (a pool child that dies
        # in the shutdown does not drain its pool; its containers are orphans from then on).
        at_stop = _containers(instance)
        at_stop_described = _describe(at_stop)
        shell(env, REAP)
        left = _containers(instance)
        orphans = state["orphans"]
        state.update(
            broker=broker,
            kills=kills,
            orphans_while_running=len(orphans),
            containers_at_stop=len(at_stop),
            containers_left=len(left),
            seconds=round(time.monotonic() - began),
        )
        print("FAULT-INJECTION", json.dumps(state))
        assert kills["worker"] >= 2 and kills["child"] >= 2
        assert state["finished_ranked"] > 0
        assert state["unfinished"] == []
        assert state["unrated_finished_ranked"] == []
        assert state["rated_not_finished"] == []
        assert state["double_rated"] == []
        assert state["chain_errors"] == []
        assert state["max_attempts"] <= 3
        assert orphans == [], f"the reaper left containers of dead processes: {_describe(orphans)}"
        assert left == [], (
            "containers outlived the worker's shutdown: "
            f"{_describe(left)}; at its stop: {at_stop_described}; the worker said: "
            + "\n".join(_sandbox_lines(worker.log_path))
        )

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

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from sandbox.limits import SANDBOX_IMAGE
from tests.conftest import require_part
from tests.e2e.parts import (
    ROOT,
    manage,
    platform_env,
    postgres_available,
    postgres_server,
    redis_available,
    redis_server,
)

AGENTS = 8
KILLS = 8
KILL_EVERY_S = 5.0
SETTLE_S = 120.0
#: The sandbox image of this tree (`make image`); ARENA_SANDBOX_IMAGE names another build.
IMAGE = SANDBOX_IMAGE

SETUP = """
import json
from arena.accounts.models import User
from arena.submissions.models import Submission
from arena.submissions.services import submission_create
from arena.workflows.submissions import submission_activate
from games.core import get_game_spec
source = get_game_spec("simple-card").starter_source()
for i in range({agents}):
    user = User.objects.create_user(username=f"fault{{i}}", password="pw-fault-123")
    s = submission_create(owner=user, source=source, name=f"agent{{i}}")
    # Validation is not under test here: accept directly, then activate through the workflow.
    Submission.objects.filter(pk=s.pk).update(status="accepted", status_detail="test")
    s.refresh_from_db()
    submission_activate(submission=s, user=user)
print(json.dumps({{"ok": True}}))
"""

STOP_LADDER = (
    "from arena.submissions.models import Submission; "
    "print(Submission.objects.update(active=False))"
)

REPORT = """
import json
from django.db.models import Count
from arena.matches.models import Match
from arena.ratings.models import Rating, RatingChange
m = Match.objects.all()
out = {
    "matches": m.count(),
    "by_status": dict(m.values_list("status").annotate(n=Count("id")).values_list("status", "n")),
    "unfinished": list(m.filter(status__in=["queued", "running"]).values_list("id", flat=True)),
    "max_attempts": max(list(m.values_list("attempts", flat=True)) or [0]),
    "replayed": m.filter(attempts__gt=1).count(),
    "finished_ranked": m.filter(kind="ranked", status="finished").count(),
    "unrated_finished_ranked": list(
        m.filter(kind="ranked", status="finished", rated=False).values_list("id", flat=True)),
    "rated_not_finished": list(
        m.filter(rated=True).exclude(status="finished").values_list("id", flat=True)),
    "double_rated": [
        r["match"] for r in RatingChange.objects.values("match").annotate(n=Count("id"))
        if r["n"] != 2
    ],
    "chain_errors": [],
}
for rating in Rating.objects.all():
    changes = list(RatingChange.objects.filter(rating=rating).order_by("id"))
    value = 1200.0
    for c in changes:
        if abs(c.before - value) > 1e-9:
            out["chain_errors"].append(f"rating {rating.pk}: change {c.pk} starts off its chain")
        value = c.after
    if abs(value - rating.rating) > 1e-9 or rating.games != len(changes) \\
            or rating.wins + rating.losses + rating.draws != rating.games:
        out["chain_errors"].append(f"rating {rating.pk}: counters disagree with its changes")
print(json.dumps(out))
"""


#: What a worker runs when it starts: remove the containers of processes that are gone.
REAP = (
    "from arena.matches.sandboxing import remove_orphaned_agents; print(remove_orphaned_agents())"
)


def _shell(env: dict[str, str], code: str) -> str:
    return manage(env, "shell", "-c", code, timeout_s=120).strip().splitlines()[-1]


class Worker:
    """A ``celery worker`` in its own process group, restartable as an operator would.

    Beat runs apart, once, as in deploy/ (``beat()``): embedded with ``-B`` it is one more child
    of the worker, and killing "a child" could kill the scheduler, and with it the sweeper."""

    def __init__(self, env: dict[str, str], var: Path) -> None:
        self.env, self.var = env, var
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = (var / "worker.log").open("ab")

    def beat(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "arena.celery_app",
                "beat",
                "--loglevel",
                "INFO",
                "-s",
                str(self.var / "beat-schedule"),
            ],
            env=self.env,
            cwd=ROOT,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "arena.celery_app",
                "worker",
                # No -Q: every queue of the worker's own instance (CELERY_TASK_QUEUES).
                "--concurrency",
                "2",
                "--loglevel",
                "INFO",
            ],
            env=self.env,
            cwd=ROOT,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def children(self) -> list[int]:
        assert self.proc is not None
        found = subprocess.run(
            ["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True, check=False
        )
        return [int(p) for p in found.stdout.split()]

    def kill_child(self, turn: int) -> bool:
        """SIGKILL one pool child (and so whatever match it was playing, or none: an idle
        child waits for work holding the pool's job pipe lock, which arena.celery_filesystem makes
        a killed child give up)."""
        kids = self.children()
        if not kids:
            return False
        os.kill(kids[turn % len(kids)], signal.SIGKILL)
        return True

    def kill_all(self) -> None:
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)  # the worker's own session: our processes only
        self.proc.wait(timeout=20)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        # As an operator stops a worker: SIGTERM to its main process, a warm shutdown in which
        # every pool child drains its warm pool (a signal to the whole group races that).
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=20)


def _containers(image: str) -> list[str]:
    out = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"ancestor={image}"],
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


def _orphans(image: str) -> list[str]:
    """Containers of this run whose owning process is gone: what the reaper must remove while
    the worker runs (a live process's warm pool keeps idle containers on purpose)."""
    out = subprocess.run(
        [
            "docker",
            "ps",
            "-a",
            "--filter",
            f"ancestor={image}",
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


@contextmanager
def _own_image_tag() -> Iterator[str]:
    """The sandbox image under a tag of this run only, so its containers are told apart from
    other tests' (the engine is shared); the tag is removed afterwards."""
    tag = f"agent-arena-sandbox:fault-{uuid.uuid4().hex[:10]}"
    subprocess.run(["docker", "tag", IMAGE, tag], check=True, capture_output=True)
    try:
        yield tag
    finally:
        for cid in _containers(tag):  # only ours: a failed run must not leak
            subprocess.run(["docker", "rm", "-f", cid], capture_output=True, check=False)
        subprocess.run(["docker", "rmi", tag], capture_output=True, check=False)


@contextmanager
def _broker(kind: str, var: Path) -> Iterator[dict[str, str]]:
    if kind == "redis":
        require_part(redis_available(), "redis-server (apt-get install redis-server)")
        require_part(
            postgres_available(), "PostgreSQL server binaries (apt-get install postgresql)"
        )
        with redis_server() as redis_url, postgres_server() as db_url:
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
    with _own_image_tag() as image, _broker(broker, var) as env:
        env.update(
            ARENA_SANDBOX_BACKEND="docker",
            ARENA_SANDBOX_IMAGE=image,
            ARENA_MATCHMAKING_INTERVAL_S="1",
            ARENA_SWEEP_INTERVAL_S="2",
            ARENA_MATCH_ORPHAN_GRACE_S="3",
            ARENA_MATCH_QUEUED_MAX_S="15",
            ARENA_MATCH_MAX_ATTEMPTS="3",
        )
        manage(env, "migrate", "-v0")
        _shell(env, SETUP.format(agents=AGENTS))
        worker = Worker(env, var)
        beat = worker.beat()
        worker.start()
        kills = {"child": 0, "worker": 0}
        began = time.monotonic()
        try:
            for i in range(KILLS):
                time.sleep(KILL_EVERY_S)
                if i % 3 == 2:
                    worker.kill_all()
                    kills["worker"] += 1
                    time.sleep(1.0)
                    worker.start()  # the operator restarts it
                elif worker.kill_child(i):
                    kills["child"] += 1
            _shell(env, STOP_LADDER)
            deadline = time.monotonic() + SETTLE_S
            report = json.loads(_shell(env, REPORT))
            orphans = _orphans(image)
            # Settled: every match ended and the reaper removed what killed children left.
            while (report["unfinished"] or orphans) and time.monotonic() < deadline:
                time.sleep(3)
                report = json.loads(_shell(env, REPORT))
                orphans = _orphans(image)
        finally:
            worker.stop()
            beat.terminate()
            beat.wait(timeout=30)
        # The warm pool keeps idle containers while its worker runs: count after it stopped,
        # once the orphan sweep that every worker start runs has run (a pool child that dies
        # in the shutdown does not drain its pool; its containers are orphans from then on).
        at_stop = len(_containers(image))
        _shell(env, REAP)
        left = _containers(image)
        report.update(
            broker=broker,
            kills=kills,
            orphans_while_running=len(orphans),
            containers_at_stop=at_stop,
            containers_left=len(left),
            seconds=round(time.monotonic() - began),
        )
        print("FAULT-INJECTION", json.dumps(report))
        assert kills["worker"] >= 2 and kills["child"] >= 2
        assert report["finished_ranked"] > 0
        assert report["unfinished"] == []
        assert report["unrated_finished_ranked"] == []
        assert report["rated_not_finished"] == []
        assert report["double_rated"] == []
        assert report["chain_errors"] == []
        assert report["max_attempts"] <= 3
        assert orphans == [], "the reaper left containers of dead processes"
        assert left == [], "containers outlived the worker's shutdown"

"""The pool race: a job handed to a pool child as it is killed must not leave a slot taken.

A real worker (``manage.py arena_worker``, two pool processes, prefetch 1, ``acks_late`` and
``reject_on_worker_lost`` as the settings have them) on Redis, then on the embedded filesystem
broker. Again and again the test sends a job and kills the pool process it reaches (SIGKILL) at
a chosen point: strace, attached to both idle processes, kills the one that enters the chosen
system call (``KILL_AT``): halfway through reading the job (its length read, not its bytes),
after reading it and before telling the pool it took it, or just after. Then it stops both
processes (SIGSTOP), sends a job, lets the pool write it to one of them, and kills both: a job
handed to a process that never reads it. Each killed job must still end, once (run by another
process, or handed back to the broker and run again), and after all the kills two long jobs
must run side by side: both prefetch slots free, and the worker never restarted.

Before the filesystem broker ran Celery's event-loop pool (arena/celery_filesystem.py), its
children shared one job pipe: a child killed between the two reads of a job left the rest of
the message in the pipe, the next reader took it for a length and waited forever, and a child
killed after the reads took the job with it; either way the job never ended and its slot stayed
taken until the worker restarted (docs/operations.md, "A killed pool process").

Bounded: ``ROUNDS`` rounds of four kills per broker, a job of ``JOB_S`` each, then
``PARALLEL_S`` of parallel work. The figures are printed (``-s`` shows them).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from celery import Celery

from devtools.parts import (
    PROCESS_SANDBOX,
    ROOT,
    manage,
    platform_env,
    redis_server,
    start_process,
)
from tests.conftest import require_part, wait_for
from tests.e2e.servers import require_redis

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

#: Where the pool process a job reaches is killed: the system call it enters, and which one of
#: them since strace attached (the idle process's wait in ``read`` counts as the first read).
KILL_AT = {
    "halfway through reading the job": ("read", 2),  # the length is read, the bytes are not
    "after reading the job, before telling the pool it took it": ("write", 1),
    "after telling the pool it took the job": ("write", 2),
}
ROUNDS = 2
JOB_S = 0.2
PARALLEL_S = 3.0
#: Generous bounds on what must happen; they time nothing.
WAIT_S = 60.0
TASK = "pool_race.hold"  # tests/e2e/pool_race_tasks.py


@contextmanager
def _platform(broker: str, var: Path) -> Iterator[dict[str, str]]:
    database = f"sqlite:///{var / 'arena.sqlite3'}"
    # Agents never run here: the process sandbox keeps the worker from starting containers.
    if broker == "redis":
        require_redis()
        with redis_server() as redis_url:
            yield platform_env(var, database, REDIS_URL=redis_url, **PROCESS_SANDBOX)
    else:
        yield platform_env(var, database, **PROCESS_SANDBOX)


def _sender(env: dict[str, str], var: Path) -> Celery:
    """A Celery client on the worker's broker (the settings' broker, read from ``env``)."""
    sender = Celery(f"pool-race-{uuid.uuid4().hex[:6]}", set_as_current=False)
    if env.get("REDIS_URL"):
        sender.conf.broker_url = env["REDIS_URL"]
        return sender
    folders = {key: var / "broker" / key for key in ("queue", "processed", "control")}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    sender.conf.broker_url = "filesystem://"
    sender.conf.broker_transport = "arena.celery_filesystem:Transport"
    sender.conf.broker_transport_options = {
        "data_folder_in": str(folders["queue"]),
        "data_folder_out": str(folders["queue"]),
        "processed_folder": str(folders["processed"]),
        "control_folder": str(folders["control"]),
        "store_processed": False,
    }
    return sender


def _children(pid: int) -> list[int]:
    done = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False)
    return [int(p) for p in done.stdout.split()]


def _syscall(pid: int) -> str:
    """What ``pid`` is doing: the system call it waits in (number and arguments), or
    ``running``; ``gone`` once it exited."""
    try:
        return Path(f"/proc/{pid}/syscall").read_text().strip() or "gone"
    except OSError:
        return "gone"


def _idle_children(worker: subprocess.Popen[bytes], log: Path) -> dict[int, str]:
    """Both pool processes, each waiting in the same system call twice in a row: idle."""

    def idle() -> dict[int, str] | None:
        assert worker.poll() is None, f"the worker exited:\n{log.read_text()[-4000:]}"
        kids = _children(worker.pid)
        first = {k: _syscall(k) for k in kids}
        time.sleep(0.2)
        if len(kids) != 2 or any(s in ("running", "gone") for s in first.values()):
            return None
        return first if all(_syscall(k) == first[k] for k in kids) else None

    return wait_for(idle, timeout_s=WAIT_S, what="two idle pool processes", every_s=0.1)


def _kill_where(
    worker: subprocess.Popen[bytes],
    log: Path,
    var: Path,
    call: str,
    nth: int,
    send: Callable[[], object],
) -> int:
    """Attach strace to both idle pool processes, to kill the one that enters its ``nth``
    ``call``; ``send`` a job; return the process killed (the other is let go)."""
    tracers: dict[int, tuple[subprocess.Popen[bytes], Path]] = {}
    outputs = []
    try:
        for child in _idle_children(worker, log):
            said = var / f"strace-{child}.txt"
            outputs.append(said.open("wb"))
            tracer = subprocess.Popen(
                [
                    "strace",
                    "-p",
                    str(child),
                    "-o",
                    "/dev/null",
                    "-e",
                    f"trace={call}",
                    "-e",
                    f"inject={call}:signal=KILL:when={nth}",
                ],
                stdout=subprocess.DEVNULL,
                stderr=outputs[-1],
            )
            tracers[child] = (tracer, said)
        for child, (tracer, said) in tracers.items():
            wait_for(
                lambda: b"attached" in said.read_bytes() or tracer.poll() is not None,  # noqa: B023
                timeout_s=WAIT_S,
                what=f"strace to attach to pool process {child}",
            )
            assert tracer.poll() is None, said.read_text()
        send()
        return wait_for(
            lambda: next((c for c, (t, _) in tracers.items() if t.poll() is not None), None),
            timeout_s=WAIT_S,
            what=f"a pool process to take the job and be killed at its {call} number {nth}",
        )
    finally:
        for tracer, _ in tracers.values():
            if tracer.poll() is None:
                tracer.terminate()  # strace lets its process go on
            tracer.wait(timeout=30)
        for output in outputs:
            output.close()


def _wait_for_end(folder: Path, token: str, what: str) -> None:
    """Wait until the job ``token`` ended somewhere, and check it ended once."""
    wait_for(lambda: _ran(folder, token, "done"), timeout_s=WAIT_S, what=f"{what} to end")
    assert len(_ran(folder, token, "done")) == 1, f"{what} ran to its end twice"


def _ran(folder: Path, token: str, stage: str) -> list[int]:
    """The processes that started (``start``) or ended (``done``) the job ``token``."""
    return [int(p.name.split(".")[1]) for p in folder.glob(f"{token}.*.{stage}")]


@pytest.mark.parametrize("broker", [pytest.param("redis", marks=pytest.mark.redis), "filesystem"])
def test_a_job_handed_to_a_child_as_it_is_killed_leaves_no_slot_taken(broker: str) -> None:
    require_part(shutil.which("strace") is not None, "strace (apt-get install strace)")
    var = Path(tempfile.mkdtemp(prefix=f"arena-pool-race-{broker}-"))
    with _platform(broker, var) as env:
        manage(env, "migrate", "-v0", timeout_s=300)
        queue = f"{env['ARENA_INSTANCE_ID']}.maintenance"
        sender = _sender(env, var)
        folder = var / "pool-race"
        log_path = var / "worker.log"
        log = log_path.open("ab")
        worker = start_process(
            [
                sys.executable,
                str(ROOT / "manage.py"),
                "arena_worker",
                "--concurrency",
                "2",
                "--role",
                "maintenance",
                "--",
                "--include",
                "tests.e2e.pool_race_tasks",
            ],
            env,
            log,
            new_session=True,
        )
        kills = 0
        try:
            wait_for(
                lambda: b" ready." in log_path.read_bytes() or worker.poll() is not None,
                timeout_s=WAIT_S,
                what="the worker to say it is ready",
            )
            for n in range(ROUNDS):
                for where, (call, nth) in KILL_AT.items():
                    token = f"kill{n}-{call}{nth}"
                    _kill_where(
                        worker,
                        log_path,
                        var,
                        call,
                        nth,
                        lambda t=token: (sender.send_task(TASK, args=[t, JOB_S], queue=queue)),
                    )
                    kills += 1
                    _wait_for_end(folder, token, f"the job whose process was killed {where}")
                # Both processes stopped, the job is written to one of them (or waits in the
                # shared pipe), and both are killed before either can read it.
                children = list(_idle_children(worker, log_path))
                for child in children:
                    os.kill(child, signal.SIGSTOP)
                token = f"stopped{n}"
                job = sender.send_task(TASK, args=[token, JOB_S], queue=queue).id
                wait_for(
                    lambda: f"[{job}] received".encode() in log_path.read_bytes(),  # noqa: B023
                    timeout_s=WAIT_S,
                    what=f"the worker to receive job {job} and hand it to its pool",
                )
                time.sleep(0.5)  # the pool writes the job to a process's pipe
                for child in children:
                    os.kill(child, signal.SIGKILL)
                kills += len(children)
                _wait_for_end(folder, token, f"job {job}, written to a stopped process")
            # Both slots free: two long jobs run side by side.
            _idle_children(worker, log_path)
            for token in ("side1", "side2"):
                sender.send_task(TASK, args=[token, PARALLEL_S], queue=queue)
            wait_for(
                lambda: all(_ran(folder, t, "done") for t in ("side1", "side2")),
                timeout_s=WAIT_S,
                what="two long jobs sent after the kills to end",
            )
            starts = [float(p.read_text()) for p in folder.glob("side*.start")]
            ends = [float(p.read_text()) for p in folder.glob("side*.done")]
            assert max(starts) < min(ends), "the two jobs ran one after the other: a slot is taken"
            assert worker.poll() is None, "the worker exited"
        finally:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=30)
            log.close()
            text = log_path.read_text(encoding="utf-8", errors="replace")
            lost = text.count("raised error: WorkerLostError")
            print(
                f"pool race on {broker}: {kills} pool processes killed; {lost} jobs they had "
                f"taken failed as lost and went back to the broker; log: {log_path}"
            )

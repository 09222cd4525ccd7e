"""Real parts for tests and benchmarks: redis-server and PostgreSQL from the Debian binaries, on
free loopback ports in temporary directories, started and stopped by whoever needs them."""

from __future__ import annotations

import glob
import hashlib
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[1]

#: Where this test run keeps its identity, so every copy of this module (and a child process that
#: inherits the environment) agrees on it.
RUN_ID_VARIABLE = "ARENA_TEST_RUN_INSTANCE_ID"


def run_instance_id() -> str:
    """This test run's platform instance identity (``ARENA_INSTANCE_ID``), ``test-<8 hex>``: the
    in-process platform uses it, and each platform a test starts adds a suffix of its own
    (``platform_env``), so two test runs on one Docker engine, or a test run beside a ``make
    run``, never touch each other's sandbox containers."""
    run = os.environ.setdefault(RUN_ID_VARIABLE, f"test-{secrets.token_hex(4)}")
    # Under pytest-xdist each worker process is a run of its own (the workers inherit the
    # controller's variable): ``test-<hex>-gw0``, ``test-<hex>-gw1``. The controller's clean-up
    # (prefix ``test-<hex>-``) still covers them all.
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return f"{run}-{worker}" if worker else run


def platform_instance_id(database_url: str) -> str:
    """The instance identity of a platform this run starts on ``database_url``: the run's, with
    a suffix derived from its database (processes sharing one database are one platform)."""
    return f"{run_instance_id()}-{hashlib.sha256(database_url.encode()).hexdigest()[:6]}"


def free_port() -> int:
    """A TCP port nobody listens on right now (loopback)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: How long a process being waited for may go without using any CPU before the wait gives up
#: (it hangs); and the longest wait for a process that keeps working (a loaded host).
STALL_S = 120.0
WAIT_CAP_S = 900.0


def _tree_cpu_s(pid: int) -> float | None:
    """CPU seconds used by ``pid`` and its children (``/proc``; ``None`` where there is none)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total, found = 0.0, False
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        # After the command: state, ppid, ..., utime (index 11), stime (12).
        if int(entry.name) == pid or (len(fields) > 1 and int(fields[1]) == pid):
            found = True
            total += (int(fields[11]) + int(fields[12])) / tick
    return total if found else None


def wait_while_working(
    check: Callable[[], bool],
    *,
    process: subprocess.Popen[bytes],
    what: str,
    stall_s: float = STALL_S,
    cap_s: float = WAIT_CAP_S,
    every_s: float = 0.2,
) -> None:
    """Return once ``check()`` is true, waiting as long as ``process`` lives and makes progress.

    A server starting on a loaded host (load 8-20 on two cores) takes minutes where an idle one
    takes seconds, so a fixed short timeout fails the first and a long one makes a hung server
    cost the whole of it. This waits while ``process`` is alive and its CPU time (with its
    children's) keeps growing; it raises ``RuntimeError`` saying which at once when the process
    exits, after ``stall_s`` without any CPU used, or after ``cap_s`` in all.
    """
    began = time.monotonic()
    last_cpu, last_progress = _tree_cpu_s(process.pid), began
    while not check():
        now = time.monotonic()
        code = process.poll()
        if code is not None:
            raise RuntimeError(f"{what}: the process exited (code {code}) before it was ready")
        cpu = _tree_cpu_s(process.pid)
        if cpu is None or last_cpu is None or cpu > last_cpu:
            last_cpu, last_progress = cpu, now
        if now - last_progress > stall_s:
            raise RuntimeError(f"{what}: the process used no CPU for {stall_s:.0f} s (hung?)")
        if now - began > cap_s:
            raise RuntimeError(f"{what}: not ready after {cap_s:.0f} s though it kept working")
        time.sleep(every_s)


def port_open(port: int) -> bool:
    """Something accepts connections on 127.0.0.1:``port`` now."""
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_for_port(
    port: int, timeout_s: float = 90.0, *, process: subprocess.Popen[bytes] | None = None
) -> bool:
    """True once something accepts connections on 127.0.0.1:port; False after ``timeout_s`` (a
    generous bound: a server starting on a busy CI host). With ``process`` (the server), the
    wait lasts as long as that process lives and works instead (``wait_while_working``), and
    ``timeout_s`` is ignored."""
    if process is not None:
        try:
            wait_while_working(lambda: port_open(port), process=process, what=f"port {port}")
        except RuntimeError:
            return False
        return True
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if port_open(port):
            return True
        time.sleep(0.1)
    return False


def _answers(url: str, timeout_s: float) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout_s):  # noqa: S310 - our loopback server
            return True
    except urllib.error.HTTPError:
        return True  # an error status is an answer
    except OSError:
        return False


def wait_http(
    url: str, timeout_s: float = 30.0, *, process: subprocess.Popen[bytes] | None = None
) -> None:
    """Return once ``url`` answers HTTP (any status); raise after ``timeout_s``, or, with
    ``process`` (the server), once it exits or stops working (``wait_while_working``). Each try
    waits up to 30 s for its answer: a server's first request loads the whole site, which takes
    seconds on a loaded host."""
    if process is not None:
        wait_while_working(lambda: _answers(url, 30.0), process=process, what=url)
        return
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if _answers(url, max(0.5, min(30.0, deadline - time.monotonic()))):
            return
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout_s:.0f} s")


def celery_command(*args: str) -> list[str]:
    """``celery -A arena.celery_app <args>`` (a worker or beat) with this Python."""
    return [sys.executable, "-m", "celery", "-A", "arena.celery_app", *args]


def runserver_command(port: int) -> list[str]:
    """Django's development server on 127.0.0.1:``port``, serving static files, no reloader."""
    return [
        sys.executable,
        str(ROOT / "manage.py"),
        "runserver",
        f"127.0.0.1:{port}",
        "--noreload",
        "--insecure",
    ]


def start_process(
    command: list[str], env: dict[str, str], log: IO[bytes] | int, *, new_session: bool = False
) -> subprocess.Popen[bytes]:
    """Start a platform process in the repository with ``env``, its output (stdout and stderr)
    to ``log``; with ``new_session``, in a process group of its own."""
    return subprocess.Popen(
        command,
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=new_session,
    )


def stop_processes(*procs: subprocess.Popen[bytes], timeout_s: float = 20) -> None:
    """SIGTERM to every process, then wait up to ``timeout_s`` for each; kill what outlasts it."""
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def redis_available() -> bool:
    """redis-server is installed."""
    return shutil.which("redis-server") is not None


@contextmanager
def redis_server() -> Iterator[str]:
    """A throw-away Redis; yields its URL."""
    port = free_port()
    workdir = tempfile.mkdtemp(prefix="arena-redis-")
    proc = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            workdir,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        if not wait_for_port(port):
            raise RuntimeError("redis-server did not start")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"))
    return Path(found[-1]).parent if found else None


def postgres_available() -> bool:
    """Debian's PostgreSQL server binaries are installed."""
    return _pg_bin() is not None


@contextmanager
def postgres_server() -> Iterator[str]:
    """A throw-away PostgreSQL cluster with database ``arena``; yields its URL.

    PostgreSQL refuses to run as root, so as root it runs as the ``postgres`` user.
    """
    bindir = _pg_bin()
    assert bindir is not None
    port = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="arena-pg-"))
    datadir = workdir / "data"
    as_user: list[str] = []
    if os.geteuid() == 0:
        as_user = ["runuser", "-u", "postgres", "--"]
        shutil.chown(workdir, "postgres", "postgres")
    subprocess.run(
        [
            *as_user,
            str(bindir / "initdb"),
            "-D",
            str(datadir),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    proc = subprocess.Popen(
        [
            *as_user,
            str(bindir / "postgres"),
            "-D",
            str(datadir),
            "-p",
            str(port),
            "-k",
            str(workdir),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "fsync=off",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        if not wait_for_port(port):
            raise RuntimeError("postgres did not start")
        for _ in range(50):
            created = subprocess.run(
                [
                    str(bindir / "createdb"),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    str(port),
                    "-U",
                    "postgres",
                    "arena",
                ],
                capture_output=True,
            )
            if created.returncode == 0:
                break
            time.sleep(0.2)
        else:
            raise RuntimeError(f"createdb failed: {created.stderr.decode()}")
        yield f"postgres://postgres@127.0.0.1:{port}/arena"
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        shutil.rmtree(workdir, ignore_errors=True)


#: ``platform_env`` settings that run agents as plain processes: the process backend, which
#: isolates nothing and so must be allowed explicitly (docs/sandbox.md), for the tests and
#: benches about queues and workers rather than containers.
PROCESS_SANDBOX = {"ARENA_SANDBOX_BACKEND": "process", "ARENA_ALLOW_PROCESS_SANDBOX": "1"}


def platform_env(var_dir: Path, database_url: str, **extra: str) -> dict[str, str]:
    """The environment a platform process (manage.py, worker, web) runs with in tests."""
    # Nothing of this process's own instance leaks in: its settings, its Redis, and the metrics
    # folder its own import of arena.metrics exported (the stack's /metrics would add it up).
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ARENA_", "DJANGO_", "REDIS_", "PROMETHEUS_"))
    }
    # The sandbox image is the one exception: the whole suite runs the image the environment
    # names (sandbox.limits.SANDBOX_IMAGE), e.g. one built from a branch's own harness.
    if os.environ.get("ARENA_SANDBOX_IMAGE"):
        env["ARENA_SANDBOX_IMAGE"] = os.environ["ARENA_SANDBOX_IMAGE"]
    env.update(
        PYTHONPATH=os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
        DJANGO_SETTINGS_MODULE="arena.settings",
        DJANGO_SECRET_KEY="e2e-tests-only-" + "x" * 40,
        ARENA_VAR_DIR=str(var_dir),
        ARENA_DATABASE_URL=database_url,
        ARENA_INSTANCE_ID=platform_instance_id(database_url),
        # Tests count the tasks a worker ran in its log ("Task ... succeeded").
        ARENA_LOG_TASKS="1",
    )
    env.update(extra)
    return env


def sqlite_platform_env(
    stack: ExitStack, var_dir: Path, **extra: str
) -> tuple[dict[str, str], str]:
    """A throw-away platform's environment on SQLite in ``var_dir``, and its broker's name: Redis
    when redis-server is installed (started here, stopped when ``stack`` closes), else the
    filesystem broker."""
    broker = "filesystem"
    if redis_available():
        extra["REDIS_URL"] = stack.enter_context(redis_server())
        broker = "redis"
    return platform_env(var_dir, f"sqlite:///{var_dir / 'bench.sqlite3'}", **extra), broker


def manage(env: dict[str, str], *args: str, timeout_s: float = 120) -> str:
    """Run ``manage.py`` with ``env``; raise with its output when it fails."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout

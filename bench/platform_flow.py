"""Platform figures with a real worker: JSON on stdout.

Starts a throw-away platform (SQLite; Redis when redis-server is installed, else the filesystem
broker; one Celery worker with ``--concurrency`` processes, 1 by default; the web server) and
measures through the JSON API:
  * upload → accepted: seconds from POST /api/submissions to status accepted (self-play done);
  * training match: seconds from POST /api/training to finished, and the referee's own duration;
  * ranked throughput: matches per minute the worker sustains on a queue of ranked matches
    (the submission against a house bot, all enqueued at once; matchmaking's own scheduling is
    off so that it adds nothing to the queue), and the CPU of a ranked match by component:
    ``worker`` (the Celery worker and its pool processes: referee, controller, database
    writes), ``web`` (the web server, idle here), ``engine`` (dockerd, containerd, the shims,
    runc: the host's, shared with any other user of the engine), ``agents`` (the cgroups of this
    platform's sandbox containers), ``broker`` (Redis); sampled every 0.2 s from ``/proc`` and
    the containers' cgroups, while the bench counts finished matches in the database file.

``--reuse both`` (the default) runs the whole platform twice, one after the other in the same
run: with reused sandboxes (``ARENA_SANDBOX_REUSE=1``, the default) and without (``0``), and
reports their ratio; ``on`` or ``off`` runs one.

Run: `make bench` or `.venv/bin/python bench/platform_flow.py [--game G] [--ranked N]
[--concurrency C] [--reuse both|on|off]`.
"""

from __future__ import annotations

import sys
from pathlib import Path

# This file is named like the standard library's `platform` module (which uuid, Django and
# Celery import): drop its folder from the path before anything imports it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import argparse  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import sqlite3  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

from arena_cli.submit_cmd import api_request, get_token, upload  # noqa: E402
from bench.sandbox_reuse import Sampler, _host_busy_s, processes, tree_cpu  # noqa: E402
from devtools.parts import (  # noqa: E402
    celery_command,
    free_port,
    manage,
    runserver_command,
    sqlite_platform_env,
    start_process,
    wait_for_port,
)
from games.core import available_game_ids, get_game_spec  # noqa: E402


def wait(check, timeout_s: float = 300.0, every_s: float = 0.05):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every_s)
    raise TimeoutError("the platform did not finish in time")


class PlatformSampler(Sampler):
    """``Sampler`` (the engine's processes, the containers' cgroups) plus the platform's own
    process trees: the worker, the web server and the broker."""

    def __init__(self, roots: dict[str, int]) -> None:
        super().__init__(every_s=0.2)
        self.roots = roots
        self.trees: dict[str, dict[int, float]] = {name: {} for name in roots}
        self.trees_start: dict[str, dict[int, float]] = {}

    def __enter__(self) -> PlatformSampler:
        self.trees_start = {name: tree_cpu(pid) for name, pid in self.roots.items()}
        super().__enter__()
        return self

    def _sample(self) -> None:
        super()._sample()
        for name, pid in self.roots.items():
            seen = self.trees[name]
            for child, cpu in tree_cpu(pid).items():
                seen[child] = max(cpu, seen.get(child, 0.0))

    def tree_s(self, name: str) -> float:
        start = self.trees_start.get(name, {})
        return sum(cpu - start.get(pid, 0.0) for pid, cpu in self.trees[name].items())


def watch_containers(instance: str, found: set[str]) -> threading.Event:
    """Note the id of every container this platform instance creates (the engine's events)."""
    import docker

    from sandbox.instance import INSTANCE_LABEL

    stop = threading.Event()
    ready = threading.Event()

    def watch() -> None:
        client = docker.from_env()
        events = client.events(
            decode=True,
            filters={
                "label": f"{INSTANCE_LABEL}={instance}",
                "type": "container",
                "event": "create",
            },
        )
        ready.set()
        for event in events:
            found.add(str(event.get("id", "")))
            if stop.is_set():
                break
        events.close()

    threading.Thread(target=watch, daemon=True).start()
    ready.wait(10)
    return stop


def done_count(database: Path, first: int, last: int) -> int:
    """Finished or errored matches between ``first`` and ``last``, read from the SQLite file
    (a ``manage.py shell`` a second would cost the two cores more than the worker's matches)."""
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)) as db:
        row = db.execute(
            "SELECT COUNT(*) FROM matches_match WHERE id BETWEEN ? AND ? "
            "AND status IN ('finished', 'error')",
            (first, last),
        ).fetchone()
    return int(row[0])


def played_s(database: Path, first: int, last: int) -> float:
    """Seconds from the first of these matches' start to the last one's finish."""
    import datetime

    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)) as db:
        began, ended = db.execute(
            "SELECT MIN(started), MAX(finished) FROM matches_match WHERE id BETWEEN ? AND ?",
            (first, last),
        ).fetchone()
    span = datetime.datetime.fromisoformat(ended) - datetime.datetime.fromisoformat(began)
    return max(span.total_seconds(), 0.001)


def run(args: argparse.Namespace, reuse: str) -> dict[str, Any]:
    var = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    with contextlib.ExitStack() as stack:
        extra = {
            "ARENA_ALLOW_PROCESS_SANDBOX": "1",
            "ARENA_SANDBOX_BACKEND": "auto",
            # Matchmaking would add its own matches to the queue being measured.
            "ARENA_MATCHMAKING_INTERVAL_S": "100000",
            # Reused sandboxes (the default) or one container per agent per match (0).
            "ARENA_SANDBOX_REUSE": reuse,
        }
        env, broker = sqlite_platform_env(stack, var, **extra)
        containers: set[str] = set()
        if backend_is_docker():
            stack.callback(watch_containers(env["ARENA_INSTANCE_ID"], containers).set)
        manage(env, "arena_setup")
        backend = manage(
            env,
            "shell",
            "-c",
            "from arena.matches.sandboxing import sandbox_backend; print(sandbox_backend())",
        ).split()[-1]
        manage(
            env,
            "shell",
            "-c",
            "from arena.accounts.models import User; "
            "User.objects.create_user('bench', password='bench-pass-123')",
        )
        port = free_port()
        logs = (var / "worker.log").open("wb")
        stack.callback(logs.close)
        # No -Q: every queue of the platform's instance (CELERY_TASK_QUEUES).
        worker = ["worker", "--concurrency", str(args.concurrency), "--loglevel", "WARNING"]
        command = celery_command(*worker)
        if args.profile:
            # One process (the solo pool) under cProfile with a CPU clock, written at its exit.
            command = [sys.executable, "-c", PROFILED_WORKER, str(var / "worker.prof")]
            command += ["-A", "arena.celery_app", "worker", "--pool", "solo"]
            command += ["--loglevel", "WARNING"]
        procs = [
            start_process(command, env, logs),
            start_process(runserver_command(port), env, subprocess.DEVNULL),
        ]

        def stop() -> None:
            for p in procs:
                p.terminate()
            for p in procs:
                p.wait(timeout=30)

        stack.callback(stop)
        if not wait_for_port(port):
            raise RuntimeError("the web server did not start")
        time.sleep(2.0)  # let the worker connect before the clock starts
        url = f"http://127.0.0.1:{port}"
        token = get_token(url, "bench", "bench-pass-123")
        agent = var / "agent.py"
        agent.write_text(get_game_spec(args.game).starter_source())

        accepted_s, submission = [], None
        for i in range(args.uploads):
            began = time.perf_counter()
            sid = upload(url, token, agent, name=f"bench{i}")["id"]
            submission = wait(
                lambda sid=sid: (
                    s := api_request(url, "GET", f"/api/submissions/{sid}", token=token)
                )["status"]
                != "pending"
                and s
            )
            accepted_s.append(time.perf_counter() - began)
            assert submission["status"] == "accepted", submission
        assert submission is not None

        training_s, referee_s = [], []
        bot = sorted(get_game_spec(args.game).bots)[0]
        for _ in range(args.trainings):
            began = time.perf_counter()
            mid = api_request(
                url,
                "POST",
                "/api/training",
                token=token,
                body={"submission": submission["id"], "opponent": f"house:{bot}"},
            )["match"]
            match = wait(
                lambda mid=mid: (m := api_request(url, "GET", f"/api/matches/{mid}", token=token))[
                    "status"
                ]
                in ("finished", "error")
                and m
            )
            training_s.append(time.perf_counter() - began)
            referee_s.append(match["duration_s"] or 0.0)

        # A queue of ranked matches between the submission and a house bot, all enqueued at once.
        database = var / "bench.sqlite3"
        redis_pid = _child_named("redis-server")
        roots = {"worker": procs[0].pid, "web": procs[1].pid, "broker": redis_pid}
        load_before = os.getloadavg()[0]
        busy_before = _host_busy_s()
        began = time.perf_counter()
        # The worker starts on the first match while the rest are still being enqueued: the
        # samples cover it all, the rate is the matches' own (first start to last finish).
        with PlatformSampler({k: v for k, v in roots.items() if v}) as sampler:
            created = manage(
                env,
                "shell",
                "-c",
                (
                    "from django.db import transaction; "
                    "from arena.workflows.dispatch import match_schedule; "
                    "from arena.submissions.models import Submission; "
                    "from arena.submissions.services import house_submission_ensure; "
                    # Ranked matches are for active submissions (whose sandboxes may be reused).
                    f"Submission.objects.filter(pk={submission['id']}).update(active=True); "
                    f"mine = Submission.objects.get(pk={submission['id']}); "
                    f"house = house_submission_ensure(game='{args.game}', bot='{bot}'); "
                    # One transaction: every match is enqueued at its commit, so the worker's
                    # database writes do not slow the inserts down (one at a time, 300 took
                    # minutes on a loaded host).
                    "ids = []\n"
                    "with transaction.atomic():\n"
                    f"    for _ in range({args.ranked}):\n"
                    "        match = match_schedule(kind='ranked', submissions=[mine, house])\n"
                    "        ids.append(match.pk)\n"
                    "print(min(ids), max(ids))"
                ),
                timeout_s=600,
            )
            first, last = (int(x) for x in created.split()[-2:])
            wait(
                lambda: done_count(database, first, last) == args.ranked,
                timeout_s=900,
                every_s=0.2,
            )
            sampled_s = time.perf_counter() - began
        elapsed = played_s(database, first, last)
        busy = _host_busy_s() - busy_before
        errors = manage(
            env,
            "shell",
            "-c",
            "from arena.matches.models import Match; "
            f"print(Match.objects.filter(pk__gte={first}, pk__lte={last}, status='error').count())",
        )
    profile = profile_top(var / "worker.prof", args.ranked) if args.profile else None
    shutil.rmtree(var, ignore_errors=True)
    split = {
        "worker": sampler.tree_s("worker"),
        "web": sampler.tree_s("web"),
        "broker": sampler.tree_s("broker"),
        "engine": sampler.engine_s() if backend == "docker" else 0.0,
        "agents": sampler.containers_s(containers),
    }
    total = sum(split.values())
    return {
        "game": args.game,
        "broker": broker,
        "sandbox": backend,
        "upload_to_accepted_s": {
            "median": round(statistics.median(accepted_s), 3),
            "max": round(max(accepted_s), 3),
            "n": len(accepted_s),
        },
        "training_request_to_finished_s": {
            "median": round(statistics.median(training_s), 3),
            "max": round(max(training_s), 3),
            "n": len(training_s),
        },
        "training_referee_duration_s": {"median": round(statistics.median(referee_s), 3)},
        "sandbox_reuse": reuse,
        "concurrency": args.concurrency,
        "ranked_matches_per_minute": round(args.ranked / elapsed * 60, 1),
        "ranked_matches": args.ranked,
        "ranked_errors": int(errors.split()[-1]),
        "ranked_elapsed_s": round(elapsed, 2),
        "cpu_ms_per_ranked_match": {
            **{name: round(value / args.ranked * 1000, 1) for name, value in split.items()},
            "total": round(total / args.ranked * 1000, 1),
        },
        "engine_share": round(split["engine"] / total, 3) if total else 0.0,
        "load": {
            "load_average_before": round(load_before, 2),
            "host_busy_cores": round(busy / sampled_s, 2),
        },
        **({"worker_profile": profile} if profile else {}),
    }


#: ``python -c`` this, the profile's path and Celery's arguments: the worker under cProfile.
PROFILED_WORKER = """
import cProfile, runpy, sys, time
path = sys.argv[1]
sys.argv = ["celery", *sys.argv[2:]]
profiler = cProfile.Profile(time.process_time)
profiler.enable()
try:
    runpy.run_module("celery", run_name="__main__")
except SystemExit:
    pass
finally:
    profiler.disable()
    profiler.dump_stats(path)
"""


def profile_top(path: Path, matches: int) -> dict[str, Any]:
    """The profiled worker's CPU a ranked match (every task it ran, setup's included, over the
    ranked count) by area of the code, and its costliest functions by their own time."""
    import pstats

    if not path.exists():
        return {"error": "the worker wrote no profile"}
    stats = pstats.Stats(str(path)).stats  # type: ignore[attr-defined]
    areas: dict[str, float] = {}
    rows = []
    for (filename, line, function), (_, _, own, cumulative, _) in stats.items():
        area = _area(filename)
        areas[area] = areas.get(area, 0.0) + own
        rows.append((own, cumulative, f"{area}: {Path(filename).name}:{line} {function}"))
    rows.sort(reverse=True)

    def ms(value: float) -> float:
        return round(value / matches * 1000, 2)

    return {
        "cpu_ms_per_match_by_area": {
            k: ms(v) for k, v in sorted(areas.items(), key=lambda kv: -kv[1]) if ms(v) >= 0.05
        },
        "top_own_cpu_ms_per_match": [[name, ms(own), ms(cum)] for own, cum, name in rows[:25]],
    }


def _area(filename: str) -> str:
    if filename.startswith("<") or "/" not in filename:
        return "builtins" if filename.startswith("~") else "other"
    parts = Path(filename).parts
    for marker in ("site-packages", "platform", "lib"):
        if marker in parts:
            rest = parts[parts.index(marker) + 1 :]
            if marker == "lib" and rest and rest[0].startswith("python"):
                return "stdlib:" + (rest[1] if len(rest) > 1 else "")
            if marker != "lib" and rest:
                return rest[0] if marker == "site-packages" else "/".join(rest[:2])
    root = Path(__file__).resolve().parents[1]
    try:
        return Path(filename).resolve().relative_to(root).parts[0]
    except ValueError:
        return "other"


def _child_named(name: str) -> int:
    """The pid of this process's child called ``name`` (the broker), or 0."""
    me = os.getpid()
    return next((pid for pid, comm, parent, _ in processes() if parent == me and comm == name), 0)


def backend_is_docker() -> bool:
    from sandbox import detect_backend

    return str(detect_backend()) == "docker"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = "split-or-steal" if "split-or-steal" in available_game_ids() else "simple-card"
    parser.add_argument("--game", default=default)
    parser.add_argument("--uploads", type=int, default=5)
    parser.add_argument("--trainings", type=int, default=5)
    parser.add_argument("--ranked", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=1, help="the worker's processes")
    parser.add_argument("--reuse", choices=["both", "on", "off"], default="both")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="one worker process (solo pool) under cProfile: its CPU by area and function",
    )
    args = parser.parse_args()
    modes = {"on": ["1"], "off": ["0"], "both": ["1", "0"]}[args.reuse]
    runs = {f"reuse_{'on' if mode == '1' else 'off'}": run(args, mode) for mode in modes}
    report: dict[str, Any] = {"runs": runs}
    if len(runs) == 2:
        on, off = runs["reuse_on"], runs["reuse_off"]
        report["reuse_over_no_reuse_matches_per_minute"] = round(
            on["ranked_matches_per_minute"] / max(off["ranked_matches_per_minute"], 0.1), 2
        )
    first = next(iter(runs.values()))
    report["ranked_matches_per_minute"] = first["ranked_matches_per_minute"]
    report["upload_to_accepted_s"] = first["upload_to_accepted_s"]
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

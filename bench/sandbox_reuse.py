"""Where a short match's CPU goes, per sandbox path, measured in one run: JSON on stdout.

Three paths play the same ranked-style split-or-steal matches (starter agent in both seats,
frozen, no stdout kept), one worker process per core, each with its own warm pool, for the same
number of seconds each, one path after the other:

* ``per_match``: today's docker path with reuse off (``SandboxLimits(supervised=False)``): one
  container per agent per match under Docker's init;
* ``reused``: supervised containers kept for the same submission's next match
  (``sandbox/reuse.py``); each seat is a submission of its own, so the two submissions meet
  again and again on each worker (a small ladder, the best case for reuse); the calls go over
  the unix-socket channel (``sandbox/socket_channel.py``), not through the engine;
* ``reused_attach``: the same, the calls through the engine's attach stream
  (``SandboxLimits(channel="attach")``, the reused path before the socket channel);
* ``process``: the process backend, the floor (no isolation).

For each: matches a minute (all workers together) and the CPU of a match split by component:
``worker`` (the worker processes: referee, controller, freezer writes; the process backend's
agents are their children and count under ``agents``), ``engine`` (dockerd, containerd,
containerd-shim*, runc: every such process on the host, sampled every 0.1 s; a process that
ends between two samples loses at most that tail), ``agents`` (the cgroups of the containers
this bench made, sampled likewise). ``engine`` is the host's: other users of the same engine
add to it, so ``load`` reports the load average and the host's busy CPU around each path.

``poker_100_hands_s`` times 100-hand poker matches of starters (``--poker-matches`` of each,
the paths taking turns, the median kept): the process backend, a per-match container, and a
reused container (a second match or later) over each channel. ``frozen_call``: two frozen
seats called in turn (``bench/sandbox_turns.py``'s measure) on each docker path, the p50 of a
whole call and the CPU of a call in this process (the controller) and in the engine.

Run: ``.venv/bin/python bench/sandbox_reuse.py [--seconds 30]`` (about three times that).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from bench.sandbox_turns import (  # noqa: E402
    POKER_STARTER,
    RANKED,
    SPLIT_OR_STEAL_STARTER,
    bench_alternating,
)
from games.core import play_match  # noqa: E402
from sandbox import (  # noqa: E402
    SandboxLimits,
    create_handle,
    drain_reused,
    drain_warm_pool,
    pool,
    start_warm_pool,
)
from sandbox.docker_handle import DockerAgentHandle  # noqa: E402

ENGINE_PROCESSES = ("dockerd", "containerd", "containerd-shim", "containerd-shim-runc-v2", "runc")
PATHS = ("per_match", "reused", "reused_attach", "process")
TICK_S = os.sysconf("SC_CLK_TCK")


def limits_for(path: str) -> SandboxLimits:
    return SandboxLimits(
        supervised=path != "per_match", channel="attach" if path == "reused_attach" else "socket"
    )


def play_one(path: str, game: str, source: str, config: dict[str, Any] | None = None) -> float:
    """One match of starters on ``path``; its wall time in seconds."""
    backend = "process" if path == "process" else "docker"
    handles = [
        create_handle(
            source,
            name=f"seat{i}",
            backend=backend,
            limits=limits_for(path),
            reuse_key=f"bench-seat{i}-{path}" if path.startswith("reused") else None,
        )
        for i in (0, 1)
    ]
    began = time.perf_counter()
    record = play_match(game, handles, seed=1, config=config, settings=RANKED)
    if record.platform_error or any(str(s.reason) != "normal" for s in record.seats):
        reasons = [f"{s.reason}: {s.detail}" for s in record.seats]
        raise RuntimeError(f"{game} on {path}: {record.platform_error or reasons}")
    return time.perf_counter() - began


def worker(args: tuple[str, float, int, str]) -> dict[str, Any]:
    """One worker process: its warm pool, then matches back to back for ``seconds``."""
    path, seconds, pool_size, image = args
    os.environ["ARENA_SANDBOX_IMAGE"] = image
    warnings.simplefilter("ignore", RuntimeWarning)
    launched: list[str] = []
    original = DockerAgentHandle.launch_container

    def launch_and_note(self: DockerAgentHandle, *, pool: bool = False) -> None:
        original(self, pool=pool)
        if self.container_id:
            launched.append(self.container_id)

    DockerAgentHandle.launch_container = launch_and_note  # type: ignore[method-assign]
    warm = None
    if path != "process":
        start_warm_pool(limits_for(path), pool_size)
        warm = pool.current()
        if warm is not None:
            warm.wait_ready(120)
    matches = 0
    cpu_began = _own_cpu_s()
    began = time.perf_counter()
    try:
        while time.perf_counter() - began < seconds:
            play_one(path, "split-or-steal", SPLIT_OR_STEAL_STARTER)
            matches += 1
        if warm is not None:
            warm.wait_ready(120)  # the containers made ahead of the clock are not free
        elapsed = time.perf_counter() - began
        cpu_ended = _own_cpu_s()
    finally:
        drain_reused()
        drain_warm_pool()
    self_cpu = cpu_ended[0] - cpu_began[0]
    children_cpu = cpu_ended[1] - cpu_began[1]
    return {
        "matches": matches,
        "elapsed_s": elapsed,
        "worker_cpu_s": self_cpu,
        "children_cpu_s": children_cpu,
        "containers": launched,
    }


def _own_cpu_s() -> tuple[float, float]:
    """This process's CPU seconds, and its reaped children's (the process backend's agents)."""
    import resource

    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, children.ru_utime + children.ru_stime


class Sampler:
    """Every 0.1 s: the CPU of each engine process and of each container cgroup (max seen)."""

    def __init__(self, every_s: float = 0.1) -> None:
        self.every_s = every_s
        self.engine: dict[int, float] = {}
        self.engine_start: dict[int, float] = {}
        self.containers: dict[str, float] = {}
        self.containers_start: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Sampler:
        self.engine_start = _engine_cpu()
        self.containers_start = _container_cpu()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self._sample()

    def _sample(self) -> None:
        for pid, cpu in _engine_cpu().items():
            self.engine[pid] = max(cpu, self.engine.get(pid, 0.0))
        for cid, cpu in _container_cpu().items():
            self.containers[cid] = max(cpu, self.containers.get(cid, 0.0))

    def engine_s(self) -> float:
        return sum(cpu - self.engine_start.get(pid, 0.0) for pid, cpu in self.engine.items())

    def containers_s(self, ids: set[str]) -> float:
        return sum(
            cpu - self.containers_start.get(cid, 0.0)
            for cid, cpu in self.containers.items()
            if cid in ids
        )


def processes() -> Iterator[tuple[int, str, int, float]]:
    """Every process on the host: its pid, name, parent's pid and CPU seconds, from ``/proc``."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        yield int(name), comm, int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK_S


def _engine_cpu() -> dict[int, float]:
    return {pid: cpu for pid, comm, _, cpu in processes() if comm.startswith(ENGINE_PROCESSES)}


def tree_cpu(root: int) -> dict[int, float]:
    """CPU seconds of ``root`` and of every process below it, by pid, from ``/proc``."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for pid, _, parent, seconds in processes():
        parents[pid] = parent
        cpu[pid] = seconds
    tree = {root}
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return {pid: cpu[pid] for pid in tree if pid in cpu}


def _container_cpu() -> dict[str, float]:
    found = {}
    v1 = Path("/sys/fs/cgroup/cpuacct/docker")
    v2 = Path("/sys/fs/cgroup/system.slice")
    if v1.is_dir():
        for entry in v1.iterdir():
            try:
                found[entry.name] = int((entry / "cpuacct.usage").read_text()) / 1e9
            except (OSError, ValueError):
                continue
    elif v2.is_dir():
        for entry in v2.glob("docker-*.scope"):
            try:
                stat = dict(line.split() for line in (entry / "cpu.stat").read_text().splitlines())
                found[entry.name[7:-6]] = int(stat["usage_usec"]) / 1e6
            except (OSError, ValueError, KeyError):
                continue
    return found


def _host_busy_s() -> float:
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / TICK_S


def measure_path(path: str, seconds: float, workers: int, pool_size: int) -> dict[str, Any]:
    context = multiprocessing.get_context("spawn")
    load_before = os.getloadavg()[0]
    busy_before = _host_busy_s()
    with Sampler() as sampler, context.Pool(workers) as processes:
        jobs = [(path, seconds, pool_size, SandboxLimits().image)] * workers
        results = processes.map(worker, jobs)
    busy = _host_busy_s() - busy_before
    matches = sum(r["matches"] for r in results)
    elapsed = max(r["elapsed_s"] for r in results)
    ids = {cid for r in results for cid in r["containers"]}
    worker_s = sum(r["worker_cpu_s"] for r in results)
    agents_s = sampler.containers_s(ids) + sum(r["children_cpu_s"] for r in results)
    engine_s = sampler.engine_s() if path != "process" else 0.0
    total = worker_s + agents_s + engine_s

    def per_match_ms(value: float) -> float:
        return round(float(value) / max(1, int(matches)) * 1000, 1)

    return {
        "matches_per_minute": round(sum(r["matches"] / r["elapsed_s"] * 60 for r in results), 1),
        "matches": matches,
        "containers_created": len(ids),
        "cpu_ms_per_match": {
            "worker": per_match_ms(worker_s),
            "engine": per_match_ms(engine_s),
            "agents": per_match_ms(agents_s),
            "total": per_match_ms(total),
        },
        "engine_share": round(engine_s / total, 3) if total else 0.0,
        "load": {
            "load_average_before": round(load_before, 2),
            "host_busy_cores": round(busy / elapsed, 2),
        },
    }


def poker_times(matches: int, paths: list[str]) -> dict[str, float]:
    """The median of ``matches`` 100-hand poker matches a path, the paths taking turns."""
    for path in paths:
        if path.startswith("reused"):  # the first match makes the containers
            play_one(path, "poker", POKER_STARTER)
    times: dict[str, list[float]] = {path: [] for path in paths}
    for _ in range(matches):
        for path in paths:
            times[path].append(play_one(path, "poker", POKER_STARTER))
    drain_reused()
    return {path: round(float(statistics.median(values)), 3) for path, values in times.items()}


def frozen_calls(path: str, calls: int) -> dict[str, Any]:
    """Two frozen seats called in turn on ``path``: the p50 of a whole call, and the CPU of a
    call in this process (the controller) and in the engine (the host's: what the engine does
    for anyone else meanwhile counts too)."""
    began = _own_cpu_s()[0]
    with Sampler() as sampler:
        result = bench_alternating(calls, limits_for(path))
    worker_s = _own_cpu_s()[0] - began
    return {
        "p50_ms": result["call_ms"]["p50"],
        "p99_ms": result["call_ms"]["p99"],
        "cpu_us_per_call": {
            "worker": round(worker_s / calls * 1e6, 1),
            "engine": round(sampler.engine_s() / calls * 1e6, 1),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--pool-size", type=int, default=2)
    parser.add_argument("--poker-matches", type=int, default=3, help="poker matches a path")
    parser.add_argument("--calls", type=int, default=400, help="frozen calls a docker path")
    args = parser.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)
    paths = {p: measure_path(p, args.seconds, args.workers, args.pool_size) for p in PATHS}
    before, after = paths["per_match"], paths["reused"]
    load_before_poker = os.getloadavg()[0]
    poker = poker_times(args.poker_matches, list(PATHS))
    frozen = {path: frozen_calls(path, args.calls) for path in PATHS if path != "process"}
    drain_warm_pool()
    report = {
        "paths": paths,
        "ratios": {
            "reused_over_per_match_matches_per_minute": round(
                after["matches_per_minute"] / max(before["matches_per_minute"], 0.1), 2
            ),
            "engine_cpu_per_match_reused_over_per_match": round(
                after["cpu_ms_per_match"]["engine"]
                / max(before["cpu_ms_per_match"]["engine"], 0.1),
                3,
            ),
            "poker_reused_over_process": round(poker["reused"] / poker["process"], 2),
            "poker_reused_attach_over_process": round(poker["reused_attach"] / poker["process"], 2),
            "poker_per_match_over_process": round(poker["per_match"] / poker["process"], 2),
        },
        "poker_and_frozen_load": {
            "load_average_before": round(load_before_poker, 2),
            "load_average_after": round(os.getloadavg()[0], 2),
        },
        "poker_100_hands_s": poker,
        "frozen_call": frozen,
        "workers": args.workers,
        "seconds_each": args.seconds,
        "cores": os.cpu_count(),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

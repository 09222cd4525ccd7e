"""Sandbox costs: JSON on stdout (DESIGN.md §4, issue 5's targets).

* ``container_ready_ms``: from ``create_handle`` to a loaded agent (container create, attach,
  start, Python start, load), one at a time, p50/p95; ``match_ready_ms``: both seats of a match
  started in parallel as the referee does, p50/p95 (target: p50 ≤ 1000 ms);
* ``turn_round_trip_ms``: one ``on_turn`` that returns at once, seen by the referee
  (``call_ms``: the whole ``call()``, freezing included) and the agent's clock window
  (``window_ms``), with and without freezing, p50/p99 (target: window p50 ≤ 1 ms unfrozen);
* ``split_or_steal_100_turns_s``: a 100-turn split-or-steal match, starter agent in both seats,
  end to end, in-process, process and docker (frozen and not);
* ``soak``: N short docker matches in a row, counting containers left, the controller's open
  descriptors and resident memory before and after (target: zero leaks).

Run: ``make bench`` or ``.venv/bin/python bench/sandbox_turns.py [--soak-matches 200]``.
The default run (30 soak matches) takes about a minute; without Docker the process backend runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from games.core import InProcessAgentHandle, MatchSettings, play_match
from games.core.agent import AgentHandle
from sandbox import SandboxLimits, create_handle, detect_backend

ROOT = Path(__file__).resolve().parent.parent
SPLIT_OR_STEAL_STARTER = (ROOT / "games" / "split_or_steal" / "starter_agent.py").read_text()
#: 3 messages + 2 choices a round, 20 rounds: 100 turns.
SPLIT_OR_STEAL_100 = {"rounds": 20, "messages_per_round": 3}
ECHO_AGENT = """
class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        return {"type": "play_card", "card": state["hand"][0]}
"""
STATE = {"hand": [4, 9], "round": 1}


def percentile(values: list[float], fraction: float) -> float:
    """The value below which ``fraction`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))
    return round(ordered[index], 3)


def summary(values: list[float], high: float) -> dict[str, float]:
    """p50 and p95/p99 of ``values`` in ms."""
    return {"p50": percentile(values, 0.5), f"p{round(high * 100)}": percentile(values, high)}


def start_one(backend: str, limits: SandboxLimits) -> tuple[AgentHandle, float]:
    began = time.perf_counter()
    handle = create_handle(ECHO_AGENT, name="bench", backend=backend, limits=limits)
    handle.start(game_id="simple-card", timeout_s=30)
    return handle, (time.perf_counter() - began) * 1000


def bench_ready(backend: str, samples: int) -> dict[str, float]:
    """One container at a time, from nothing to a loaded agent."""
    limits = SandboxLimits(freeze_idle=False)
    times = []
    for _ in range(samples):
        handle, ms = start_one(backend, limits)
        handle.close()
        times.append(ms)
    return summary(times, 0.95)


def bench_match_ready(backend: str, samples: int) -> dict[str, float]:
    """Both seats started at once, as the referee starts them."""
    limits = SandboxLimits(freeze_idle=False)
    times = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        for _ in range(samples):
            began = time.perf_counter()
            futures = [pool.submit(start_one, backend, limits) for _ in range(2)]
            handles = [f.result()[0] for f in futures]
            times.append((time.perf_counter() - began) * 1000)
            for handle in handles:
                handle.close()
    return summary(times, 0.95)


def bench_round_trip(backend: str, calls: int, freeze: bool) -> dict[str, Any]:
    handle, _ = start_one(backend, SandboxLimits(freeze_idle=freeze))
    call_ms, window_ms = [], []
    try:
        for _ in range(calls):
            began = time.perf_counter()
            result = handle.call("on_turn", STATE, 2.0)
            call_ms.append((time.perf_counter() - began) * 1000)
            window_ms.append(result.elapsed_ms)
    finally:
        handle.close()
    return {"call_ms": summary(call_ms, 0.99), "window_ms": summary(window_ms, 0.99)}


def split_or_steal_match(kind: str) -> float:
    if kind == "in-process":
        handles: list[AgentHandle] = [
            InProcessAgentHandle.from_source(SPLIT_OR_STEAL_STARTER, f"starter{i}") for i in (0, 1)
        ]
    else:
        backend, _, frozen = kind.partition(":")
        limits = SandboxLimits(freeze_idle=frozen == "frozen")
        handles = [
            create_handle(
                SPLIT_OR_STEAL_STARTER, name=f"starter{i}", backend=backend, limits=limits
            )
            for i in (0, 1)
        ]
    began = time.perf_counter()
    record = play_match(
        "split-or-steal", handles, seed=1, config=SPLIT_OR_STEAL_100, settings=MatchSettings()
    )
    elapsed = time.perf_counter() - began
    if record.platform_error or record.turns != 100:
        raise RuntimeError(f"{kind}: {record.platform_error or record.turns} turns")
    return round(elapsed, 3)


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def sandbox_containers() -> int:
    """Containers this process created and did not remove (others may share the engine)."""
    from sandbox.docker_backend import own_containers

    return len(own_containers())


def bench_soak(backend: str, matches: int) -> dict[str, Any]:
    source = (ROOT / "games" / "simple_card" / "starter_agent.py").read_text()

    def one(seed: int) -> None:
        handles = [create_handle(source, name=f"s{i}", backend=backend) for i in (0, 1)]
        record = play_match("simple-card", handles, seed=seed)
        if record.platform_error:
            raise RuntimeError(record.platform_error)

    one(0)  # warm the client's connection pool
    fds, rss = open_fds(), rss_mb()
    began = time.perf_counter()
    for seed in range(1, matches + 1):
        one(seed)
    elapsed = time.perf_counter() - began
    result: dict[str, Any] = {
        "matches": matches,
        "match_s_mean": round(elapsed / matches, 3),
        "fds_before": fds,
        "fds_after": open_fds(),
        "rss_mb_before": rss,
        "rss_mb_after": rss_mb(),
    }
    if backend == "docker":
        result["containers_left"] = sandbox_containers()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--soak-matches", type=int, default=30, help="soak length (issue: 200)")
    parser.add_argument("--samples", type=int, default=20, help="container starts to time")
    parser.add_argument("--calls", type=int, default=300, help="round trips to time")
    parser.add_argument("--backend", choices=["docker", "process"], help="default: detected")
    args = parser.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)  # the process backend's isolation warning
    backend = args.backend or detect_backend()
    out: dict[str, Any] = {"backend": backend}
    started = time.perf_counter()
    out["container_ready_ms"] = bench_ready(backend, args.samples)
    out["match_ready_ms"] = bench_match_ready(backend, args.samples)
    out["turn_round_trip_ms"] = {
        "unfrozen": bench_round_trip(backend, args.calls, freeze=False),
        "frozen": bench_round_trip(backend, args.calls // 3, freeze=True),
    }
    kinds = ["in-process", "process:unfrozen"]
    if backend == "docker":
        kinds += ["docker:unfrozen", "docker:frozen"]
    out["split_or_steal_100_turns_s"] = {kind: split_or_steal_match(kind) for kind in kinds}
    out["soak"] = bench_soak(backend, args.soak_matches)
    out["bench_s"] = round(time.perf_counter() - started, 1)
    json.dump(out, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())

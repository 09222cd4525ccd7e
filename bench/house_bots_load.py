"""Every house bot's worst call on a loaded machine (JSON on stdout).

A house bot is the platform's own code and must answer well inside the turn budget on a worker
whose cores are busy. This plays each game's house bots against each other in timed matches (the
platform's default clock: 2 s a turn) while ``--load-per-core`` busy loops per core compete for
the CPU (2: the bot's process gets about a third of a core), and reports for every bot its moves'
time (``on_turn``) as the referee charged it: p50, p95, the worst, and how many went over half the
budget or over the budget; and its slowest other call (``on_match_start`` has the 10 s loading
budget). The busy loops are this script's own children and are
stopped when it ends, whatever happens.

    PYTHONPATH=platform:. .venv/bin/python bench/house_bots_load.py --load-per-core 2
    PYTHONPATH=platform:. .venv/bin/python bench/house_bots_load.py --games chess --load-per-core 0

The budget is "well inside": the worst move under 2x load is the figure to watch (target: under
half the budget, 1 s). A single stall of the whole process (the scheduler, the collector) shows
as one outlier in ``max_ms`` with a low ``p95_ms``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import combinations

from games.core import InProcessAgentHandle, MatchSettings, get_game_spec, play_match
from games.core.registry import available_game_ids

#: The worst call should stay under this share of the turn budget.
TARGET_SHARE = 0.5


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of ``values`` (0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, round(fraction * len(ordered)) - 1))
    return ordered[index]


@contextmanager
def busy_loops(count: int) -> Iterator[list[int]]:
    """``count`` processes spinning on the CPU for as long as the block runs."""
    procs = [
        subprocess.Popen(  # noqa: S603 (this interpreter, a fixed program)
            [sys.executable, "-c", "while 1: pass"], stdin=subprocess.DEVNULL
        )
        for _ in range(count)
    ]
    try:
        time.sleep(0.5 if procs else 0)  # let the scheduler share the cores out first
        yield [p.pid for p in procs]
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGKILL)
        for proc in procs:
            proc.wait()


def play_pairings(game: str, seed: int, settings: MatchSettings) -> dict[str, dict[str, object]]:
    """Play every pairing of ``game``'s house bots once; figures per bot."""
    spec = get_game_spec(game)
    calls: dict[str, list[tuple[float, str]]] = {name: [] for name in spec.bots}
    errors: list[str] = []
    for a, b in combinations(sorted(spec.bots), 2):
        handles = [
            InProcessAgentHandle(spec.bots[a], a, platform_seat=True),
            InProcessAgentHandle(spec.bots[b], b, platform_seat=True),
        ]
        record = play_match(game, handles, seed=seed, settings=settings)
        if record.platform_error:
            errors.append(f"{a} vs {b}: {record.platform_error}")
        names = (a, b)
        for entry in record.log:
            seat, method = entry.get("seat"), str(entry.get("method"))
            elapsed = entry.get("elapsed_ms")
            wall = entry.get("wall_ms")
            if seat is None or method == "load":
                continue
            # A call past the backstop has no charged time: its wall time is what it took.
            taken = elapsed if isinstance(elapsed, int | float) else wall
            if isinstance(taken, int | float):
                calls[names[int(seat)]].append((float(taken), method))
    half_budget_ms = settings.turn_timeout_s * 1000 * TARGET_SHARE
    figures: dict[str, dict[str, object]] = {}
    for name, taken in calls.items():
        turns = [t for t, method in taken if method == "on_turn"]
        # on_match_start shares the loading budget (10 s), every other call has a turn's (2 s).
        others = [(t, m) for t, m in taken if m != "on_turn"]
        worst_other = max(others, default=(0.0, ""))
        figures[name] = {
            "turns": len(turns),
            "p50_ms": round(percentile(turns, 0.5), 1),
            "p95_ms": round(percentile(turns, 0.95), 1),
            "max_ms": round(max(turns, default=0.0), 1),
            "over_half_budget": sum(t > half_budget_ms for t in turns),
            "over_budget": sum(t > settings.turn_timeout_s * 1000 for t in turns),
            "max_other_ms": round(worst_other[0], 1),
            "max_other_method": worst_other[1],
        }
    if errors:
        figures["_platform_errors"] = {"matches": errors}
    return figures


def main() -> None:
    """Start the load, play every game's house bots, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--load-per-core", type=int, default=2, help="busy loops per core while playing (2)"
    )
    parser.add_argument("--games", default="", help="comma-separated game ids (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    games = [g for g in args.games.split(",") if g] or available_game_ids()
    settings = MatchSettings(keep_stdout=False)  # timed, the platform's default clock
    cores = os.cpu_count() or 1
    began = time.perf_counter()
    load_before = os.getloadavg()
    results: dict[str, object] = {}
    with busy_loops(args.load_per_core * cores) as loops:
        for game in games:
            results[game] = play_pairings(game, args.seed, settings)
        load_during = os.getloadavg()
    worst = max(
        (
            (float(str(fig["max_ms"])), f"{game}/{bot}")  # moves only
            for game, bots in results.items()
            for bot, fig in bots.items()  # type: ignore[attr-defined]
            if not bot.startswith("_")
        ),
        default=(0.0, ""),
    )
    print(
        json.dumps(
            {
                "bench": "house_bots_load",
                "python": platform.python_version(),
                "cores": cores,
                "busy_loops": len(loops),
                "loadavg_before": [round(x, 2) for x in load_before],
                "loadavg_during": [round(x, 2) for x in load_during],
                "turn_budget_ms": settings.turn_timeout_s * 1000,
                "target_max_ms": settings.turn_timeout_s * 1000 * TARGET_SHARE,
                "worst_move_ms": round(worst[0], 1),
                "worst_bot": worst[1],
                "games": results,
                "wall_s": round(time.perf_counter() - began, 1),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()

"""Time per move of the chess search bot, in pure Python on this machine (JSON on stdout).

Plays the search bot against the greedy bot and the random bot (two two-game matches each,
colours swapped) and reports the wall time of every search-bot ``on_turn`` as the referee
measured it. The issue's budget is "well under 1 s a move"; this script prints the figures, it
asserts nothing.

    PYTHONPATH=platform:. .venv/bin/python bench/chess_search.py
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

from games.chess.bots import BOTS, SearchBot
from games.core import InProcessAgentHandle, MatchSettings, play_match


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of ``values``."""
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, round(fraction * len(ordered)) - 1))
    return ordered[index]


PAIRINGS = (("greedy", 0), ("greedy", 1), ("random", 0), ("random", 1))


def main() -> None:
    """Play the matches and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--matches", type=int, default=len(PAIRINGS), help="play the first N of the pairings"
    )
    args = parser.parse_args()
    per_move_ms: list[float] = []
    matches = []
    began = time.perf_counter()
    for opponent, seed in PAIRINGS[: max(1, args.matches)]:
        handles = [
            InProcessAgentHandle(BOTS["search"], "search"),
            InProcessAgentHandle(BOTS[opponent], opponent),
        ]
        record = play_match(
            "chess", handles, seed=seed, settings=MatchSettings(timed=False, keep_stdout=False)
        )
        if record.platform_error:
            raise SystemExit(record.platform_error)
        times = [
            float(e["elapsed_ms"])
            for e in record.log
            if e.get("method") == "on_turn" and e.get("seat") == 0
        ]
        per_move_ms += times
        matches.append(
            {
                "opponent": opponent,
                "seed": seed,
                "summary": record.summary(),
                "search_moves": len(times),
            }
        )
    print(
        json.dumps(
            {
                "bench": "chess_search",
                "python": platform.python_version(),
                "node_budget": SearchBot.NODE_BUDGET,
                "max_depth": SearchBot.MAX_DEPTH,
                "moves": len(per_move_ms),
                "p50_ms": round(percentile(per_move_ms, 0.50), 1),
                "p95_ms": round(percentile(per_move_ms, 0.95), 1),
                "max_ms": round(max(per_move_ms), 1),
                "mean_ms": round(statistics.fmean(per_move_ms), 1),
                "matches": matches,
                "wall_s": round(time.perf_counter() - began, 1),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()

"""Referee and engine throughput, in-process (no sandbox): JSON on stdout.

For every registered game: one house-bot match end to end (wall time, on_turn calls, mean
referee+engine+bot cost per call), so a slow engine or referee shows up before it reaches users.
Run: `make bench` or `.venv/bin/python bench/engines.py [--matches N]`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from games.core import (
    InProcessAgentHandle,
    MatchSettings,
    available_game_ids,
    get_game_spec,
    play_match,
)


def bench_game(game_id: str, matches: int) -> dict[str, object]:
    spec = get_game_spec(game_id)
    names = list(spec.bots)[:2]
    durations, per_call_ms, calls = [], [], 0
    for seed in range(matches):
        handles = [InProcessAgentHandle(spec.bots[n], n) for n in names]
        began = time.perf_counter()
        record = play_match(game_id, handles, seed=seed, settings=MatchSettings(timed=False))
        elapsed = time.perf_counter() - began
        n_calls = sum(1 for e in record.log if e["method"] == "on_turn")
        durations.append(elapsed)
        per_call_ms.append(elapsed * 1000 / max(n_calls, 1))
        calls += n_calls
    return {
        "bots": names,
        "matches": matches,
        "match_s_median": round(statistics.median(durations), 4),
        "on_turn_calls_per_match": round(calls / matches, 1),
        "ms_per_call_median": round(statistics.median(per_call_ms), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=5)
    args = parser.parse_args()
    out = {game_id: bench_game(game_id, args.matches) for game_id in available_game_ids()}
    print(json.dumps({"bench": "engines", "results": out}, indent=2))


if __name__ == "__main__":
    main()

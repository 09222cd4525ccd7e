"""Language-model seats: the platform's overhead per model call, and model matches a minute.

Prints one JSON object:

* ``overhead_ms``: per ``on_turn`` of a model seat, its wall time minus the model call's own
  latency (prompt building from the game's adapter, schema narrowing, the client, parsing the
  answer) against a loopback server that answers at once. Target: p50 <= 5 ms.
* ``matches_per_minute``: short chess matches (a model seat against the random house bot) played
  at once by 1, 4 and 16 threads of one process, as the ``llm`` queue's thread pool would,
  against ``--server fake`` (the loopback server: the platform's own ceiling) or ``--server
  local`` (SmolLM2 on llama-cpp-python, ``make llm-server``: the model server's ceiling).
  Target: near-linear growth until the model server is the bottleneck.

Usage: ``python bench/llm_seats.py [--server fake|local] [--calls N] [--matches N]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from games.core import (  # noqa: E402
    InProcessAgentHandle,
    MatchSettings,
    house_bot_class,
    play_match,
)
from llm_seat import Endpoint, LlmSeat, Sampling, SeatPolicy  # noqa: E402
from llm_seat.handle import CallRecord, NoHooks  # noqa: E402


class Latencies(NoHooks):
    def __init__(self) -> None:
        self.latency_s: list[float] = []

    def record(self, call: CallRecord) -> None:
        self.latency_s.append(call.latency_s)


def seat(url: str, json_style: str, hooks: Any = None) -> LlmSeat:
    return LlmSeat(
        endpoint=Endpoint(name="bench", base_url=url, model="bench", json_style=json_style),
        sampling=Sampling(max_tokens=32, temperature=0.0),
        policy=SeatPolicy(move_budget_s=60.0),
        hooks=hooks or NoHooks(),
        display_name="model",
    )


class TimedSeat(LlmSeat):
    """Records the wall time of every ``on_turn``."""

    walls: list[float]

    def call(self, method: str, payload: Any, timeout_s: float) -> Any:
        started = time.perf_counter()
        try:
            return super().call(method, payload, timeout_s)
        finally:
            if method == "on_turn":
                self.walls.append(time.perf_counter() - started)


def overhead(url: str, json_style: str, calls: int) -> dict[str, float]:
    hooks = Latencies()
    model = TimedSeat(
        endpoint=Endpoint(name="bench", base_url=url, model="bench", json_style=json_style),
        sampling=Sampling(max_tokens=32),
        policy=SeatPolicy(move_budget_s=60.0),
        hooks=hooks,
    )
    model.walls = []
    bot = InProcessAgentHandle(house_bot_class("chess", "random"), display_name="random")
    while len(model.walls) < calls:
        play_match(
            "chess",
            [model, bot],
            seed=len(model.walls),
            config={"games": 1, "max_plies": min(400, 2 * calls)},
            settings=MatchSettings(timed=False),
        )
    extra = sorted((w - lat) * 1000 for w, lat in zip(model.walls, hooks.latency_s, strict=False))
    return {
        "calls": len(extra),
        "p50_ms": round(statistics.median(extra), 3),
        "p95_ms": round(extra[int(0.95 * (len(extra) - 1))], 3),
        "model_latency_p50_ms": round(statistics.median(hooks.latency_s) * 1000, 3),
    }


def throughput(url: str, json_style: str, threads: int, matches: int, plies: int) -> float:
    def one(i: int) -> None:
        bot = InProcessAgentHandle(house_bot_class("chess", "random"), display_name="random")
        record = play_match(
            "chess",
            [seat(url, json_style), bot],
            seed=i,
            config={"games": 1, "max_plies": plies},
            settings=MatchSettings(timed=False),
        )
        assert record.platform_error is None, record.platform_error

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(one, range(matches)))
    return round(matches / ((time.perf_counter() - started) / 60), 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=["fake", "local"], default="fake")
    parser.add_argument("--calls", type=int, default=200, help="on_turn calls for the overhead")
    parser.add_argument("--matches", type=int, default=16, help="matches per concurrency level")
    parser.add_argument("--plies", type=int, default=8, help="plies per chess match (a short one)")
    parser.add_argument("--concurrency", default="1,4,16")
    args = parser.parse_args()
    with ExitStack() as stack:
        from devtools.fakemodel import FakeModel

        fake = stack.enter_context(FakeModel())
        if args.server == "local":
            from devtools.localmodel import local_model_server

            url, style = stack.enter_context(local_model_server()), "json_object"
        else:
            url, style = fake.base_url, "json_schema"
        figures: dict[str, Any] = {
            "server": args.server,
            "overhead_ms": overhead(fake.base_url, "json_schema", args.calls),
            "overhead_target_p50_ms": 5.0,
            "matches_per_minute": {
                str(c): throughput(url, style, c, max(args.matches, c), args.plies)
                for c in (int(x) for x in args.concurrency.split(","))
            },
            "plies_per_match": args.plies,
        }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()

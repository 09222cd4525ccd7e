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
* ``node``: one worker node as ``make run`` starts it, real processes (``bench/_pools.py``): the
  ranked pool (``arena_worker`` roles matches and tournament, the settings' concurrency) and the
  model pool (role llm, ``--pool threads``, ``--model-threads`` threads), on a throw-away
  platform (SQLite, as ``make run``, with Redis when installed, else the filesystem broker; or
  ``--database postgres``: PostgreSQL and Redis, as deploy/). Code matches are ranked
  simple-card matches between two uploaded starter agents in the process sandbox, kept queued;
  their rate is measured alone, then while model matches (a model entrant against the random
  house bot, chess, untimed, ``--plies``) keep the model pool's every thread busy, then alone
  again. Reports code matches a minute in each window, model matches a minute beside them,
  ``code_ratio_with_models`` (with models / the mean of the two alone windows) and
  ``code_match_time_ratio_with_models`` (the code matches' median duration alone / beside the
  models: the same rate, not quantised by a window's count when matches are long). Target: code
  matches keep their rate (ratio near 1). With ``--server fake`` the model answers at once (the
  model pool then plays as fast as the node's CPU allows: the worst case for the code pool), or
  ``--node-latency-s`` late. ``--code-think-s`` makes the code agents compute for that long
  each turn, as real ones do (1-2 s of a 2 s budget), instead of answering at once.

Usage: ``python bench/llm_seats.py [--server fake|local] [--calls N] [--matches N]
[--node-seconds S | --no-node]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

from devtools.fakemodel import FakeModel  # noqa: E402
from devtools.parts import (  # noqa: E402
    platform_env,
    postgres_server,
    redis_server,
    sqlite_platform_env,
)
from games.core import (  # noqa: E402
    InProcessAgentHandle,
    MatchSettings,
    get_game_spec,
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


class SlowFake(FakeModel):
    """The loopback server answering each call ``latency_s`` late, as a provider would."""

    def __init__(self, latency_s: float) -> None:
        super().__init__()
        self.latency_s = latency_s

    def serve(self, h: Any, behaviour: Any, body: dict[str, Any]) -> None:
        self.stop_event.wait(self.latency_s)
        super().serve(h, behaviour, body)


CODE_GAME = "simple-card"
#: Code matches kept queued per slot of the code pool.
CODE_QUEUE_PER_SLOT = 12
MODEL_GAME = "chess"


def log(message: str) -> None:
    print(f"[llm_seats] {message}", file=sys.stderr, flush=True)


def thinking_source(starter: str, think_s: float) -> str:
    """``starter`` with every ``on_turn`` first computing (a busy loop) for ``think_s``."""
    marker = "    def on_turn(self, round_state):\n"
    if marker not in starter:
        raise SystemExit("bench: the starter's on_turn is not where --code-think-s expects it")
    busy = (
        "        import time\n"
        f"        end = time.perf_counter() + {think_s!r}\n"
        "        while time.perf_counter() < end:\n"
        "            pass\n"
    )
    return starter.replace(marker, marker + busy, 1)


class Node:
    """A throw-away platform and one worker node (ranked pool and model pool) on it."""

    def __init__(self, stack: ExitStack, url: str, style: str, args: argparse.Namespace) -> None:
        var = Path(tempfile.mkdtemp(prefix="arena-llm-node-"))
        stack.callback(shutil.rmtree, var, ignore_errors=True)
        extra = {
            "ARENA_SANDBOX_BACKEND": "process",
            "ARENA_ALLOW_PROCESS_SANDBOX": "1",
            "ARENA_LOG_LEVEL": "WARNING",
            # Only the matches this bench queues are played.
            "ARENA_MATCHMAKING_INTERVAL_S": "100000",
        }
        if args.database == "postgres":
            # As deploy/ runs it: PostgreSQL and Redis.
            extra["REDIS_URL"] = stack.enter_context(redis_server())
            env = platform_env(var, stack.enter_context(postgres_server()), **extra)
            self.broker = "redis"
        else:
            env, self.broker = sqlite_platform_env(stack, var, **extra)
        os.environ.update(env)
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        self.args = args
        self.threads = args.model_threads
        self.code_concurrency = args.code_concurrency or settings.CELERY_WORKER_CONCURRENCY
        self.seed(url, style)
        from bench._pools import start_pools, stop_pools

        worker_log = (var / "workers.log").open("wb")
        stack.callback(worker_log.close)
        pools = start_pools(
            env,
            worker_log,
            ["worker", "model worker"],
            {"worker": args.code_concurrency or None, "model worker": self.threads},
        )
        stack.callback(stop_pools, pools)

    def seed(self, url: str, style: str) -> None:
        """The model (slots enough for every thread), its entrant, the chess house bot, and two
        uploaded simple-card starter agents."""
        from arena.accounts.models import User
        from arena.llm.models import LanguageModel
        from arena.llm.services import model_entrant_create
        from arena.submissions.models import Submission
        from arena.submissions.services import house_submission_ensure

        from bench._seed import starter_entry

        LanguageModel.objects.create(
            name="bench",
            display_name="bench",
            base_url=url,
            model_id="bench",
            json_style=style,
            default_max_tokens=32,
            concurrency=4 * self.threads,
            requests_per_minute=10**9,
        )
        owner = User.objects.create_user(username="modeller")
        entrant = model_entrant_create(
            owner=owner, model_name="bench", game=MODEL_GAME, name="model", temperature=0.0
        )
        Submission.objects.filter(pk=entrant.pk).update(status=Submission.Status.ACCEPTED)
        self.model_pair = [entrant, house_submission_ensure(game=MODEL_GAME, bot="random")]
        self.code_pair = [
            starter_entry(User.objects.create_user(username=f"coder{i}"), CODE_GAME, "a")
            for i in range(2)
        ]
        think_s = self.args.code_think_s
        if think_s:
            # Agents that compute for ``think_s`` each turn, as real ones use their budget.
            source = thinking_source(get_game_spec(CODE_GAME).starter_source(), think_s)
            Submission.objects.filter(pk__in=[s.pk for s in self.code_pair]).update(source=source)

    def queued(self, game: str) -> int:
        from arena.matches.models import Match

        return Match.objects.filter(game=game, status__in=["queued", "running"]).count()

    def top_up(self, models: bool) -> None:
        """Keep code matches (and, with ``models``, model matches) waiting for every slot."""
        from arena.matches.models import Match
        from arena.workflows.dispatch import match_schedule
        from django.db import transaction

        # Deep enough that the code pool never runs dry between two top-ups: at 3 a slot, a
        # pool playing 15 micro-matches a second emptied it, and the "alone" rate measured the
        # feeding (about 850 a minute where 1,000 were played with 12 a slot).
        wanted = [(CODE_GAME, CODE_QUEUE_PER_SLOT * self.code_concurrency)]
        if models:
            wanted.append((MODEL_GAME, 2 * self.threads))
        for game, depth in wanted:
            for _ in range(depth - self.queued(game)):
                with transaction.atomic():
                    if game == CODE_GAME:
                        match_schedule(kind="ranked", submissions=self.code_pair)
                    else:
                        match = match_schedule(
                            kind="ranked", submissions=self.model_pair, timed=False
                        )
                        config = {"games": 1, "max_plies": self.args.plies}
                        Match.objects.filter(pk=match.pk).update(config=config)

    def drain(self, game: str, timeout_s: float = 300.0) -> None:
        """Withdraw the waiting matches of ``game`` (a worker skips a match that is no longer
        queued), then wait for those in play."""
        from arena.matches.models import Match

        Match.objects.filter(game=game, status="queued").update(
            status="error", error="withdrawn by the bench"
        )
        deadline = time.monotonic() + timeout_s
        while self.queued(game) and time.monotonic() < deadline:
            time.sleep(0.5)

    def window(self, seconds: float, models: bool) -> dict[str, Any]:
        """Matches finished within ``seconds`` while the queues are kept full."""
        from arena.matches.models import Match
        from django.utils import timezone

        self.top_up(models)
        began = timezone.now()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.top_up(models)
            time.sleep(0.25)
        until = timezone.now()
        done = Match.objects.filter(finished__gte=began, finished__lt=until)
        per_minute = 60 / (until - began).total_seconds()
        figures: dict[str, Any] = {}
        for name, game in (("code", CODE_GAME), ("model", MODEL_GAME)):
            finished = done.filter(game=game, status="finished").count()
            figures[f"{name}_matches_per_minute"] = round(finished * per_minute, 1)
            figures[f"{name}_finished"] = finished
            took = [
                (finished - started).total_seconds()
                for started, finished in done.filter(
                    game=game, status="finished", started__isnull=False
                ).values_list("started", "finished")
                if started and finished
            ]
            if took:
                figures[f"{name}_match_s_median"] = round(statistics.median(took), 3)
            errors = done.filter(game=game).exclude(status="finished").count()
            if errors:
                figures[f"{name}_not_finished"] = errors
        return figures

    def measure(self) -> dict[str, Any]:
        seconds = self.args.node_seconds
        log("node: warming up (the pools' first matches are not counted)...")
        self.window(seconds / 2, models=True)
        self.drain(MODEL_GAME)
        log("node: code matches alone...")
        before = self.window(seconds, models=False)
        log(f"node: {before}")
        log(f"node: with model matches at concurrency {self.threads}...")
        self.top_up(models=True)
        self.window(min(5.0, seconds / 2), models=True)  # the model pool gets busy first
        beside = self.window(seconds, models=True)
        log(f"node: {beside}")
        self.drain(MODEL_GAME)
        log("node: code matches alone again...")
        after = self.window(seconds, models=False)
        log(f"node: {after}")
        alone = (before["code_matches_per_minute"] + after["code_matches_per_minute"]) / 2
        ratio = beside["code_matches_per_minute"] / alone if alone else None
        # The same by each code match's own duration (not quantised by the window's count,
        # which a few long matches make coarse): the alone windows' median / the one beside.
        took = [w.get("code_match_s_median") for w in (before, after)]
        took_ratio = None
        if all(took) and beside.get("code_match_s_median"):
            took_ratio = round(statistics.mean(took) / beside["code_match_s_median"], 3)
        return {
            "pools": {
                "worker (matches, tournament)": self.code_concurrency,
                "model worker (llm, threads)": self.threads,
            },
            "database": self.args.database,
            "broker": self.broker,
            "sandbox": "process",
            "code_game": CODE_GAME,
            "model_game": MODEL_GAME,
            "seconds": seconds,
            "code_alone_before": before,
            "with_models": beside,
            "code_alone_after": after,
            "code_ratio_with_models": None if ratio is None else round(ratio, 3),
            "code_match_time_ratio_with_models": took_ratio,
            "code_think_s": self.args.code_think_s,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=["fake", "local"], default="fake")
    parser.add_argument("--calls", type=int, default=200, help="on_turn calls for the overhead")
    parser.add_argument("--matches", type=int, default=16, help="matches per concurrency level")
    parser.add_argument("--plies", type=int, default=8, help="plies per chess match (a short one)")
    parser.add_argument("--concurrency", default="1,4,16")
    parser.add_argument(
        "--node-seconds", type=float, default=60.0, help="each window of the worker-node figure"
    )
    parser.add_argument("--no-node", action="store_true", help="skip the worker-node figure")
    parser.add_argument(
        "--node-latency-s",
        type=float,
        default=0.0,
        help="with --server fake, the node's loopback model answers each call this late (as a "
        "provider would) instead of at once",
    )
    parser.add_argument(
        "--database",
        choices=["sqlite", "postgres"],
        default="sqlite",
        help="the node's platform database: SQLite as make run, or PostgreSQL as deploy/",
    )
    parser.add_argument(
        "--code-think-s",
        type=float,
        default=0.0,
        help="the node's code agents compute this long in each turn (a busy loop, as a real "
        "agent uses its budget) instead of answering at once",
    )
    parser.add_argument("--model-threads", type=int, default=16, help="the model pool's threads")
    parser.add_argument(
        "--code-concurrency",
        type=int,
        default=0,
        help="the ranked pool's processes (default: the settings', as make run)",
    )
    args = parser.parse_args()
    with ExitStack() as stack:
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
        if not args.no_node:
            if args.server == "fake" and args.node_latency_s:
                url = stack.enter_context(SlowFake(args.node_latency_s)).base_url
            figures["node"] = Node(stack, url, style, args).measure()
            if args.server == "fake":
                figures["node"]["fake_latency_s"] = args.node_latency_s
        figures["load_average_1_5_15"] = os.getloadavg()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()

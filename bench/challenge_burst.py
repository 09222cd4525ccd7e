"""Ranked play during a burst of challenges, with a real worker: JSON on stdout.

Starts a throw-away platform (SQLite, Redis when installed else the filesystem broker) with a
simple-card ladder of ``--entries`` uploaded agents (the starter agent, in the process sandbox),
and its worker pools as ``make run`` starts them (``bench/_pools.py``): the ranked pool (roles
matches and tournament, ``--concurrency`` processes), the interactive pool (training and
validation, where challenges run, the settings' ``ARENA_INTERACTIVE_CONCURRENCY``) and the
maintenance pool; ``--workers single`` starts one worker on every queue (or on
``--worker-queues``) instead. Then, twice for ``--seconds``: matchmaking passes every
second, and the ranked matches finished in that window are counted; the second time one user
first sends ``--burst`` challenges at once (through the API, as fast as the test client goes).

Reports the ranked matches per minute without and with the burst and their ratio (target: the
burst costs ranked play at most 20 %), how the burst was answered (201 / 429, and how many 429
carried Retry-After), how many ranked matches matchmaking paired in the window (the supply: when
it is close to the finished count, the pools kept up with it), and how many
challenges ran in the window. Run: `.venv/bin/python bench/challenge_burst.py`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

from devtools.parts import (  # noqa: E402
    PROCESS_SANDBOX,
    celery_command,
    sqlite_platform_env,
    start_process,
)

GAME = "simple-card"


def log(message: str) -> None:
    print(f"[burst] {message}", file=sys.stderr, flush=True)


def seed(entries: int) -> tuple[Any, Any, Any]:
    """``entries`` ladder agents of their own owners, and a challenger with an accepted agent."""
    from arena.accounts.models import User
    from arena.accounts.services import token_get_or_create
    from arena.ratings.services import rating_ensure

    from bench._seed import starter_entry

    ladder = []
    for i in range(entries):
        sub = starter_entry(User.objects.create_user(username=f"player{i}"), GAME, f"bot{i}")
        rating_ensure(submission=sub)
        ladder.append(sub)
    flooder = User.objects.create_user(username="flooder")
    mine = starter_entry(flooder, GAME, "flood", active=False)
    return ladder, mine, token_get_or_create(user=flooder).key


def drain(timeout_s: float) -> None:
    from arena.matches.models import Match

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not Match.objects.filter(status__in=["queued", "running"]).exists():
            return
        time.sleep(0.5)
    log("the queue did not drain in time; measuring anyway")


def window(seconds: float, burst: int, target: Any, mine: Any, token: str) -> dict[str, Any]:
    from arena.matches.models import Match
    from arena.workflows.ladder import matchmaking_run
    from django.test import Client
    from django.utils import timezone

    drain(120)
    began = timezone.now()
    answers: Counter[int] = Counter()
    burst_s = [0.0]
    retry_after = [0]

    def flood() -> None:
        # The burst runs beside matchmaking, as another user's requests would.
        client = Client(HTTP_AUTHORIZATION=f"Token {token}")
        body = json.dumps({"submission": mine.pk, "agent": target.agent_id})
        t0 = time.perf_counter()
        for _ in range(burst):
            answer = client.post("/api/challenges", body, content_type="application/json")
            answers[answer.status_code] += 1
            if answer.status_code == 429 and answer.has_header("Retry-After"):
                retry_after[0] += 1
        burst_s[0] = time.perf_counter() - t0

    sender = threading.Thread(target=flood) if burst else None
    if sender is not None:
        sender.start()
    end = time.monotonic() + seconds
    paired = 0
    while time.monotonic() < end:
        paired += len(matchmaking_run())
        time.sleep(1.0)
    if sender is not None:
        sender.join()
    until = began + timedelta(seconds=seconds)
    done = Match.objects.filter(finished__gte=began, finished__lt=until, status="finished")
    ranked = done.filter(kind="ranked").count()
    return {
        "ranked_finished": ranked,
        "ranked_per_minute": round(ranked / seconds * 60, 1),
        "ranked_paired": paired,
        "challenges_finished": done.filter(kind="challenge").count(),
        "burst_answers": dict(answers),
        "burst_429_with_retry_after": retry_after[0],
        "burst_s": round(burst_s[0], 2),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    var = Path(tempfile.mkdtemp(prefix="arena-burst-"))
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, var, ignore_errors=True)
        extra = {
            **PROCESS_SANDBOX,
            "ARENA_CHALLENGES_PER_HOUR": str(args.quota),
            "ARENA_LOG_LEVEL": "WARNING",
            "DJANGO_ALLOWED_HOSTS": "testserver",
            # Every pass is driven from here, not by beat.
            "ARENA_MATCHMAKING_INTERVAL_S": "100000",
        }
        env, broker = sqlite_platform_env(stack, var, **extra)
        os.environ.update(env)
        import django

        django.setup()
        from arena.celery_app import worker_queues
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        ladder, mine, token = seed(args.entries)
        from django.conf import settings

        worker_log = (var / "worker.log").open("wb")
        stack.callback(worker_log.close)
        from bench._pools import start_pools, stop_pools

        if args.workers == "pools":
            names = ["worker", "interactive worker", "maintenance worker"]
            procs = start_pools(env, worker_log, names, {"worker": args.concurrency})
            workers: dict[str, Any] = {
                "worker (matches, tournament)": args.concurrency,
                "interactive worker (training, validation)": (
                    settings.ARENA_INTERACTIVE_CONCURRENCY
                ),
                "maintenance worker (maintenance)": settings.ARENA_MAINTENANCE_CONCURRENCY,
            }
        else:
            # Roles (matches, training, ...) name this instance's queues.
            queues = (
                ",".join(settings.ARENA_QUEUES.get(r, r) for r in args.worker_queues.split(","))
                if args.worker_queues
                else ",".join(worker_queues())
            )
            procs = [
                start_process(
                    celery_command("worker", "-Q", queues, "--concurrency", str(args.concurrency),
                                   "--loglevel", "WARNING"),
                    env, worker_log, new_session=True,
                )
            ]  # fmt: skip
            workers = {f"single ({args.worker_queues or 'every queue'})": args.concurrency}
        stack.callback(stop_pools, procs)
        log("warming up (the worker's first matches are not counted)...")
        window(args.seconds / 2, 0, ladder[0], mine, token)
        log("alone...")
        alone = window(args.seconds, 0, ladder[0], mine, token)
        log(f"alone: {alone}")
        log("with the burst...")
        burst = window(args.seconds, args.burst, ladder[0], mine, token)
        log(f"with the burst: {burst}")
        from django.conf import settings

        ratio = (
            burst["ranked_per_minute"] / alone["ranked_per_minute"]
            if alone["ranked_per_minute"]
            else None
        )
        return {
            "load_average_1_5_15": os.getloadavg(),
            "broker": broker,
            "workers": workers,
            "entries": args.entries,
            "seconds": args.seconds,
            "challenges_per_hour": args.quota,
            "challenges_in_flight": settings.ARENA_CHALLENGES_IN_FLIGHT,
            "alone": alone,
            "with_burst": burst,
            "ranked_ratio_with_burst": None if ratio is None else round(ratio, 3),
            "targets": {"ranked_ratio>=0.8": ratio is not None and ratio >= 0.8},
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=8, help="ladder agents")
    parser.add_argument("--seconds", type=float, default=60.0, help="each window")
    parser.add_argument("--burst", type=int, default=100, help="challenges sent at once")
    parser.add_argument("--quota", type=int, default=20, help="ARENA_CHALLENGES_PER_HOUR")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=2,
        help="the ranked pool's (or single worker's) processes",
    )
    parser.add_argument(
        "--workers",
        choices=["pools", "single"],
        default="pools",
        help="the pools as make run starts them, or one worker on every queue",
    )
    parser.add_argument(
        "--worker-queues",
        default="",
        help="with --workers single, the queues it consumes (default: all; e.g. "
        "matches,validation,celery to see what the requests alone cost ranked play, with no "
        "challenge played)",
    )
    print(json.dumps(run(parser.parse_args()), indent=2))


if __name__ == "__main__":
    main()

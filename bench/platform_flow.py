"""Platform figures with a real worker: JSON on stdout.

Starts a throw-away platform (SQLite; Redis when redis-server is installed, else the filesystem
broker; one Celery worker process with concurrency 1; the web server) and measures through the
JSON API:
  * upload → accepted: seconds from POST /api/submissions to status accepted (self-play done);
  * training match: seconds from POST /api/training to finished, and the referee's own duration;
  * ranked throughput: matches per minute one worker (concurrency 1) sustains on a queue of
    ranked matches.
Run: `make bench` or `.venv/bin/python bench/platform_flow.py [--game G] [--ranked N]`.
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
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

from arena_cli.submit_cmd import api_request, get_token, upload  # noqa: E402
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


def run(args: argparse.Namespace) -> dict[str, object]:
    var = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    with contextlib.ExitStack() as stack:
        extra = {
            "ARENA_ALLOW_PROCESS_SANDBOX": "1",
            "ARENA_SANDBOX_BACKEND": "auto",
            # Matchmaking would add its own matches to the queue being measured.
            "ARENA_MATCHMAKING_INTERVAL_S": "100000",
            # Reused sandboxes (the default) or one container per agent per match (0).
            "ARENA_SANDBOX_REUSE": os.environ.get("ARENA_SANDBOX_REUSE", "1"),
        }
        env, broker = sqlite_platform_env(stack, var, **extra)
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
        procs = [
            start_process(
                celery_command(
                    "worker",
                    # No -Q: every queue of the platform's instance (CELERY_TASK_QUEUES).
                    "--concurrency",
                    "1",
                    "--loglevel",
                    "WARNING",
                ),
                env,
                logs,
            ),
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
                "ids = []\n"
                f"for _ in range({args.ranked}):\n"
                "    with transaction.atomic():\n"
                "        ids.append(match_schedule(kind='ranked', submissions=[mine, house]).pk)\n"
                "print(min(ids), max(ids))"
            ),
        )
        began = time.perf_counter()
        first, last = (int(x) for x in created.split()[-2:])
        count = (
            "from arena.matches.models import Match; "
            f"print(Match.objects.done().filter(pk__gte={first}, pk__lte={last}).count())"
        )
        wait(
            lambda: int(manage(env, "shell", "-c", count).split()[-1]) == args.ranked,
            timeout_s=900,
            every_s=1.0,
        )
        elapsed = time.perf_counter() - began
    shutil.rmtree(var, ignore_errors=True)
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
        "sandbox_reuse": os.environ.get("ARENA_SANDBOX_REUSE", "1"),
        "ranked_matches_per_minute_one_worker": round(args.ranked / elapsed * 60, 1),
        "ranked_matches": args.ranked,
        "ranked_elapsed_s": round(elapsed, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = "split-or-steal" if "split-or-steal" in available_game_ids() else "simple-card"
    parser.add_argument("--game", default=default)
    parser.add_argument("--uploads", type=int, default=5)
    parser.add_argument("--trainings", type=int, default=5)
    parser.add_argument("--ranked", type=int, default=40)
    print(json.dumps(run(parser.parse_args()), indent=2))


if __name__ == "__main__":
    main()

"""Scale: one ladder of 10,000 agents and 1,000,000 finished ranked matches on PostgreSQL.

Starts a throw-away PostgreSQL (``devtools/parts.py``) and Redis (when installed, as the
broker matchmaking enqueues to), migrates, and seeds the split-or-steal ladder with COPY:
one user and one active accepted submission per agent, its rating row with the aggregates
``rating_apply`` keeps, and the finished ranked matches (two seats and two rating changes
each) drawn from hidden strengths, spread over ``--days``, and folded into the rows and the
pair records by the platform's own rule (``arena.ratings.ladder``, as ``rating_apply`` does).
Per-call match logs are not seeded (a finished match stores them as one blob).

Then measures with Django's test client, ``--requests`` times each after a warm-up: p50/p95
milliseconds, queries and bytes of the game page (first page of the leaderboard), a search on
it, the API leaderboard, the home page, the agent page of the busiest agent and a match page,
that agent's match history (the page, filtered, the API), its head-to-head (the API and the
page) and a pair page;
the time of one refit of the boards across games (and their page, read from the stored rows)
and the time and queries of one matchmaking pass over every (free) entry, split into the
pairing transaction and the enqueueing after commit.

The leaderboard pages show each rating's 95 % interval and rank range (seeded as
``rating_apply`` stores them). Targets: refit of the boards across games <= 10 s; p95 of the
leaderboard page <= 25 ms, of the home page and the busiest agent's page
<= 40 ms, of its history, head-to-head and pair pages <= 50 ms; query counts constant; one
matchmaking pass (bounded queue, median) <= 0.3 s.
The matchmaking pass is measured with the default bound on queued matches per ladder
(``ARENA_MATCHMAKING_QUEUE_MAX``) and without one (every free entry paired at once).
Run: `.venv/bin/python bench/scale.py` (full size: a few minutes, several GB of disk), or
`.venv/bin/python bench/scale.py --agents 500 --matches 20000` for a quick run. JSON on stdout,
progress on stderr. `--database-url` runs on a PostgreSQL database you started: seeded on the
first run, reused as it is by the next ones (migrated first), so only the first pays the seed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from array import array
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

from devtools.parts import (  # noqa: E402
    postgres_available,
    postgres_server,
    redis_available,
    redis_server,
)
from devtools.queries import run_recording_queries  # noqa: E402

GAME = "split-or-steal"


def log(message: str) -> None:
    print(f"[scale] {message}", file=sys.stderr, flush=True)


def _text(value: Any) -> str:
    """One value in PostgreSQL's COPY text format."""
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict | list):
        value = json.dumps(value)
    text = str(value)
    if any(c in text for c in "\\\t\n\r"):
        text = text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
        text = text.replace("\r", "\\r")
    return text


def copy_rows(model: Any, columns: list[str], rows: Iterable[tuple[Any, ...]]) -> int:
    """COPY ``rows`` (values for ``columns``) into ``model``'s table; every other column gets
    the field's default, so a column another branch adds does not break the seed."""
    from django.db import connection

    fields = {f.column: f for f in model._meta.concrete_fields}
    rest = [c for c in fields if c not in columns]
    tail = "".join(
        "\t"
        + _text(None if fields[c].null and not fields[c].has_default() else fields[c].get_default())
        for c in rest
    )
    table = model._meta.db_table
    sql = f"COPY {table} ({', '.join([*columns, *rest])}) FROM STDIN"
    count = 0
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        buffer = io.StringIO()
        for row in rows:
            buffer.write("\t".join(_text(v) for v in row) + tail + "\n")
            count += 1
            if count % 50_000 == 0:
                copy.write(buffer.getvalue())
                buffer = io.StringIO()
        copy.write(buffer.getvalue())
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "  # noqa: S608
            f"(SELECT COALESCE(MAX(id), 1) FROM {table}))"
        )
    return count


def _last_opponent(agent: int, seat_a: Any, seat_b: Any) -> int:
    """The agent id (1-based) of ``agent``'s (0-based) latest opponent."""
    for m in range(len(seat_a) - 1, -1, -1):
        if seat_a[m] == agent:
            return int(seat_b[m]) + 1
        if seat_b[m] == agent:
            return int(seat_a[m]) + 1
    return 1 if agent else 2


def seed(*, agents: int, matches: int, days: float, rng: random.Random) -> dict[str, Any]:
    """Fill the ladder; returns what the measurements need (busiest agent, a recent match)."""
    from arena.accounts.models import User
    from arena.matches.models import Match, Participant
    from arena.ratings import ladder
    from arena.ratings.models import PairRecord, Rating, RatingChange
    from arena.submissions.models import Agent, Submission
    from django.db import connection

    from games.core import get_game_spec
    from games.core.ranking import elo_expected

    version = get_game_spec(GAME).version
    now = datetime.now(UTC)
    start = now - timedelta(days=days)
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")  # no FK triggers while seeding

    t0 = time.monotonic()
    ids = range(1, agents + 1)
    copy_rows(
        User,
        ["id", "password", "username", "is_superuser", "is_staff", "is_active", "date_joined"],
        ((i, "!", f"user{i:05d}", False, False, True, start) for i in ids),
    )
    copy_rows(
        Agent,
        ["id", "owner_id", "game", "name", "created"],
        ((i, i, GAME, f"agent{i:05d}", start) for i in ids),
    )
    copy_rows(
        Submission,
        [
            "id",
            "agent_id",
            "version",
            "source",
            "sha256",
            "game_version",
            "status",
            "active",
            "created",
        ],
        ((i, i, 1, "", "0" * 64, version, "accepted", True, start) for i in ids),
    )
    log(f"{agents} users, agents, submissions: {time.monotonic() - t0:.1f} s")

    # Simulate the matches: opponents near in hidden strength, outcomes from it, each folded
    # into both rows and their pair's record by the platform's own rule (``ladder``, which
    # ``rating_apply`` applies to the stored rows).
    t0 = time.monotonic()
    names = {1: ("win", "loss"), 0: ("draw", "draw"), -1: ("loss", "win")}
    strength = [rng.gauss(1200, 300) for _ in ids]
    by_strength = sorted(range(agents), key=strength.__getitem__)
    place = {a: i for i, a in enumerate(by_strength)}
    rows = [ladder.Row() for _ in ids]
    pairs: dict[tuple[int, int], list[int]] = {}
    seat_a, seat_b = array("l"), array("l")
    outcome_a = array("b")  # 1 win, 0 draw, -1 loss
    score_a, score_b = array("d"), array("d")
    before_a, after_a, before_b, after_b = array("d"), array("d"), array("d"), array("d")
    step = timedelta(days=days) / max(1, matches)
    for m in range(matches):
        a = rng.randrange(agents)
        b = by_strength[min(agents - 1, max(0, place[a] + rng.randint(-60, 60)))]
        if b == a:
            b = (a + 1) % agents
        p = elo_expected(strength[a], strength[b])
        u = rng.random()
        result = 0 if u < 0.05 else (1 if u < 0.05 + 0.95 * p else -1)
        first, second = names[result]
        (new_a, dev_a), (new_b, dev_b) = ladder.rate_pair(rows[a], rows[b], first)
        at = start + step * m
        pa, pb = float(rng.randint(0, 100)), float(rng.randint(0, 100))
        seat_a.append(a)
        seat_b.append(b)
        outcome_a.append(result)
        score_a.append(pa)
        score_b.append(pb)
        before_a.append(rows[a].rating)
        before_b.append(rows[b].rating)
        after_a.append(new_a)
        after_b.append(new_b)
        for me, other, new, dev, outcome, pay in (
            (a, b, new_a, dev_a, first, pa),
            (b, a, new_b, dev_b, second, pb),
        ):
            ladder.fold_result(
                rows[me],
                rating=new,
                deviation=dev,
                outcome=outcome,
                payoff=pay,
                figures={},
                opponent=other + 1,
                at=at,
            )
        pair, first_wins, draw = ladder.pair_record_counts((a + 1, first), (b + 1, second))
        record = pairs.setdefault(pair, [0, 0, 0])
        record[0] += 1
        record[1] += first_wins
        record[2] += draw
    for row in rows:  # what the sums determine, once (``rating_apply`` settles every match)
        ladder.settle(row)
    log(f"simulated {matches} matches: {time.monotonic() - t0:.1f} s")

    t0 = time.monotonic()
    copy_rows(
        Rating,
        [
            "id", "submission_id", "game", "game_version", "rating", "deviation",
            "rating_low", "rating_high", "games", "wins", "losses", "draws", "payoff_sum",
            "payoff_squares", "mean_payoff", "payoff_low", "payoff_high", "last_played",
            "recent_load", "recent_opponents", "updated",
        ],
        (
            (
                i + 1, i + 1, GAME, version, r.rating, r.deviation, r.rating_low,
                r.rating_high, r.games, r.wins, r.losses, r.draws, r.payoff_sum,
                r.payoff_squares, r.mean_payoff, r.payoff_low, r.payoff_high, r.last_played,
                r.recent_load, r.recent_opponents, now,
            )
            for i, r in enumerate(rows)
        ),
    )  # fmt: skip
    rounds = [
        {"round": r, "choices": {"p0": "split", "p1": "steal"}, "points": {"p0": 0, "p1": 100}}
        for r in range(1, 6)
    ]

    def match_rows() -> Iterator[tuple[Any, ...]]:
        for m in range(matches):
            at = start + step * m
            first, second = names[outcome_a[m]]
            winner = 0 if first == "win" else 1 if second == "win" else None
            summary = (
                f"agent{seat_a[m] + 1:05d} v1: {first}, score {score_a[m]:g}; "
                f"agent{seat_b[m] + 1:05d} v1: {second}, score {score_b[m]:g}"
            )
            yield (
                m + 1, GAME, version, "ranked", "finished", True, m, winner, rounds, {},
                summary, 12.5, True, at, at, at + timedelta(seconds=12.5),
            )  # fmt: skip

    copy_rows(
        Match,
        [
            "id", "game", "game_version", "kind", "status", "timed", "seed", "winner_seat",
            "rounds", "stats", "summary", "duration_s", "rated", "created", "started",
            "finished",
        ],
        match_rows(),
    )  # fmt: skip
    log(f"{matches} matches copied: {time.monotonic() - t0:.1f} s")

    t0 = time.monotonic()

    def seat_rows() -> Iterator[tuple[Any, ...]]:
        for m in range(matches):
            first, second = names[outcome_a[m]]
            yield (2 * m + 1, m + 1, 0, seat_a[m] + 1, first, "normal", score_a[m],
                   before_a[m], after_a[m])  # fmt: skip
            yield (2 * m + 2, m + 1, 1, seat_b[m] + 1, second, "normal", score_b[m],
                   before_b[m], after_b[m])  # fmt: skip

    copy_rows(
        Participant,
        ["id", "match_id", "seat", "submission_id", "outcome", "reason", "score",
         "rating_before", "rating_after"],
        seat_rows(),
    )  # fmt: skip

    def change_rows() -> Iterator[tuple[Any, ...]]:
        for m in range(matches):
            at = start + step * m
            yield (2 * m + 1, seat_a[m] + 1, m + 1, before_a[m], after_a[m], at)
            yield (2 * m + 2, seat_b[m] + 1, m + 1, before_b[m], after_b[m], at)

    copy_rows(RatingChange, ["id", "rating_id", "match_id", "before", "after", "created"],
              change_rows())  # fmt: skip
    # Each pair's results, as ``rating_apply`` counts them (what the boards are fitted on).
    copy_rows(
        PairRecord,
        ["id", "game", "game_version", "first_id", "second_id", "matches", "first_wins", "draws"],
        (
            (i, GAME, version, f, s, n, w, d)
            for i, ((f, s), (n, w, d)) in enumerate(pairs.items(), start=1)
        ),
    )
    log(f"{2 * matches} seats and rating changes copied: {time.monotonic() - t0:.1f} s")
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = DEFAULT")
        t0 = time.monotonic()
        cursor.execute("VACUUM ANALYZE")
        cursor.execute("SELECT pg_database_size(current_database())")
        size = cursor.fetchone()[0]
    log(f"vacuum analyze: {time.monotonic() - t0:.1f} s; database {size / 1e9:.2f} GB")
    busiest = max(range(agents), key=lambda i: rows[i].games)
    return {
        "busiest_agent": busiest + 1,
        "busiest_agent_matches": rows[busiest].games,
        # Its most recent opponent: the pair page's other agent.
        "busiest_opponent": _last_opponent(busiest, seat_a, seat_b),
        "recent_match": matches,
        "database_bytes": size,
    }


def seeded_before() -> dict[str, Any] | None:
    """What ``seed`` returned, read back from a database an earlier run seeded; None when it
    holds no ladder yet."""
    from arena.matches.models import Match, Participant
    from arena.ratings.models import Rating
    from django.db import connection

    busiest = Rating.objects.filter(game=GAME).order_by("-games", "submission_id").first()
    if busiest is None:
        return None
    last_seat = (
        Participant.objects.filter(submission_id=busiest.submission_id)
        .order_by("-match_id")
        .first()
    )
    assert last_seat is not None
    opponent = (
        Participant.objects.filter(match_id=last_seat.match_id).exclude(seat=last_seat.seat).get()
    )
    with connection.cursor() as cursor:
        # An earlier run's matchmaking passes created and deleted matches at the top of the id
        # range: until autovacuum comes by, the planner wades through their dead index entries
        # (15 ms of planning for the head-to-head instead of 3). Measure the ladder as it is.
        t0 = time.monotonic()
        cursor.execute("VACUUM ANALYZE")
        log(f"vacuum analyze: {time.monotonic() - t0:.1f} s")
        cursor.execute("SELECT pg_database_size(current_database())")
        size = cursor.fetchone()[0]
    return {
        "busiest_agent": busiest.submission_id,
        "busiest_agent_matches": busiest.games,
        "busiest_opponent": opponent.submission_id,
        "recent_match": Match.objects.order_by("-pk").values_list("pk", flat=True).first(),
        "database_bytes": size,
    }


def measure(fetch: Callable[[], Any], requests: int) -> dict[str, Any]:
    """p50/p95 ms, queries and bytes of one page."""
    for _ in range(3):
        fetch()
    response, executed = run_recording_queries(fetch)
    if response.status_code != 200:
        raise RuntimeError(f"status {response.status_code}: {response.content[:300]!r}")
    times, cpu = [], []
    for _ in range(requests):
        t0, c0 = time.perf_counter(), time.process_time()
        fetch()
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    times.sort()
    return {
        "p50_ms": round(statistics.median(times), 1),
        "p95_ms": round(times[min(len(times) - 1, math.ceil(0.95 * len(times)) - 1)], 1),
        # The web process's own CPU (the database's is not in it): on a shared machine wall
        # time also holds waiting for a core.
        "web_cpu_p50_ms": round(statistics.median(cpu), 1),
        "queries": len(executed),
        "bytes": len(response.content),
    }


def explain(client: Any, path: str) -> None:
    """EXPLAIN ANALYZE every query of one request, on stderr."""
    from django.db import connection

    _, seen = run_recording_queries(lambda: client.get(path))
    with connection.cursor() as cursor:
        for sql, params in seen:
            cursor.execute(f"EXPLAIN ANALYZE {sql}", params)
            plan = "\n  ".join(row[0] for row in cursor.fetchall())
            log(f"{path}: {sql[:200]}\n  {plan}")


def matchmaking_pass(queue_max: int) -> dict[str, Any]:
    """One pass over the ladder (every entry free) with ``ARENA_MATCHMAKING_QUEUE_MAX`` set to
    ``queue_max`` (0: no bound), then its matches deleted again."""
    from arena.matches.models import Match
    from arena.ratings import services
    from arena.workflows.dispatch import matches_enqueue_on_commit
    from django.conf import settings
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    settings.ARENA_MATCHMAKING_QUEUE_MAX = queue_max

    callbacks: list[Callable[[], Any]] = []
    with CaptureQueriesContext(connection) as ctx:
        t0, c0 = time.perf_counter(), time.process_time()
        with transaction.atomic():
            created = services.ladder_pair(game=GAME)
            matches_enqueue_on_commit(created)
            callbacks = [fn for _, fn, _ in connection.run_on_commit]
            connection.run_on_commit = []  # run below, timed on their own
        paired_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    for fn in callbacks:
        fn()
    enqueue_s = time.perf_counter() - t1
    cpu_s = time.process_time() - c0
    Match.objects.filter(pk__in=[m.pk for m in created]).delete()
    return {
        "queue_max": queue_max,
        "pairing_transaction_s": round(paired_s, 3),
        "enqueue_after_commit_s": round(enqueue_s, 3),
        "total_s": round(paired_s + enqueue_s, 3),
        "web_cpu_s": round(cpu_s, 3),  # this process's CPU (not the database's, not Redis's)
        "queries": len(ctx.captured_queries),
        "matches_created": len(created),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    var = Path(tempfile.mkdtemp(prefix="arena-scale-"))
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, var, ignore_errors=True)
        database_url = args.database_url or stack.enter_context(postgres_server())
        os.environ.update(
            ARENA_DATABASE_URL=database_url,
            ARENA_VAR_DIR=str(var),
            DJANGO_SECRET_KEY="scale-bench-only-" + "x" * 40,
            DJANGO_SETTINGS_MODULE="arena.settings",
            ARENA_LOG_LEVEL="WARNING",
            # The test client's host; templates are not instrumented (no setup_test_environment)
            # so pages render as in production.
            DJANGO_ALLOWED_HOSTS="testserver",
        )
        broker = "filesystem (no redis-server installed)"
        if redis_available():
            os.environ["REDIS_URL"] = stack.enter_context(redis_server())
            broker = "redis"
        import django

        django.setup()
        from django.core.management import call_command
        from django.test import Client

        call_command("migrate", verbosity=0)
        t0 = time.monotonic()
        seeded = (seeded_before() if args.database_url else None) or seed(
            agents=args.agents, matches=args.matches, days=args.days, rng=random.Random(args.seed)
        )
        seed_s = time.monotonic() - t0
        # As gunicorn's workers and Celery's pool processes do once started: what start-up
        # built is frozen out of the cyclic collector's full collections (arena.ops.process).
        from arena.ops.process import freeze_startup_objects

        freeze_startup_objects()
        from arena.submissions.models import Submission

        client = Client()
        busiest = Submission.objects.get(pk=seeded["busiest_agent"])
        pages = {
            "leaderboard_page": f"/games/{GAME}/",
            "leaderboard_search": f"/games/{GAME}/?q=user0999",
            "leaderboard_page_100": f"/games/{GAME}/?page=100",
            "api_leaderboard": f"/api/leaderboard/{GAME}",
            "home": "/",
            "agent_page_busiest": f"/submissions/agents/{busiest.agent_id}/",
            "match_page": f"/matches/{seeded['recent_match']}/",
            # Match history and head-to-head (docs/using.md, "History and head-to-head").
            "history_page_busiest": f"/agents/{busiest.agent_id}/matches/",
            "history_page_busiest_filtered": (
                f"/agents/{busiest.agent_id}/matches/?kind=ranked&result=win"
            ),
            "api_matches_busiest": f"/api/matches?agent={busiest.agent_id}&per_page=50",
            "head_to_head_busiest": f"/api/agents/{busiest.agent_id}/head-to-head",
            "head_to_head_page_busiest": f"/agents/{busiest.agent_id}/head-to-head/",
            "pair_page_busiest": (
                f"/agents/{busiest.agent_id}/versus/{seeded['busiest_opponent']}/"
            ),
        }
        if args.explain:
            explain(client, pages["leaderboard_page"])
            explain(client, pages["agent_page_busiest"])
        figures = {}
        for name, path in pages.items():
            figures[name] = measure(lambda p=path: client.get(p), args.requests)
            log(f"{name}: {figures[name]}")
        # The boards across games: one refit (aggregation in the database, then the fit), then
        # their page and download, read from the stored rows.
        from arena.ratings.services import unified_refit

        t0 = time.perf_counter()
        fit = unified_refit()
        refit = {
            "seconds": round(time.perf_counter() - t0, 2),
            "matches": fit.matches,
            "rows": fit.standings.count(),
        }
        log(f"unified refit: {refit}")
        # The ladder's own refit (the beat's ``ladders_refit_task`` every
        # ``ARENA_LADDER_REFIT_S``): every pair record of the ladder fitted, every row written.
        from arena.ratings.models import LadderRefit
        from arena.ratings.services import ladder_refit

        from games.core import get_game_spec

        LadderRefit.objects.filter(game=GAME).delete()  # else a ladder unchanged is skipped
        t0 = time.perf_counter()
        fitted = ladder_refit(game=GAME, game_version=get_game_spec(GAME).version)
        ladder_refit_figure = {
            "seconds": round(time.perf_counter() - t0, 2),
            "matches": fitted.matches if fitted else 0,
            "rows_written": fitted.entries if fitted else 0,
        }
        log(f"ladder refit: {ladder_refit_figure}")
        for name, path in (
            ("unified_board_users", "/ratings/unified/?board=users"),
            ("api_unified_users", "/api/ratings/unified/users"),
        ):
            figures[name] = measure(lambda p=path: client.get(p), args.requests)
            log(f"{name}: {figures[name]}")
        from django.conf import settings

        default_cap = settings.ARENA_MATCHMAKING_QUEUE_MAX
        bounded = [matchmaking_pass(default_cap) for _ in range(args.passes)]
        unbounded = [matchmaking_pass(0) for _ in range(args.passes)]
        log(f"matchmaking: {bounded} {unbounded}")
        return {
            "load_average_1_5_15": os.getloadavg(),
            "cores": os.cpu_count(),
            "agents": args.agents,
            "matches": args.matches,
            "seed_s": round(seed_s, 1),
            "database_bytes": seeded["database_bytes"],
            "busiest_agent_matches": seeded["busiest_agent_matches"],
            "requests_per_page": args.requests,
            "pages": figures,
            "broker": broker,
            "matchmaking_pass_bounded_queue": bounded,
            "matchmaking_pass_unbounded": unbounded,
            "unified_refit": refit,
            "ladder_refit": ladder_refit_figure,
            "targets": {
                "unified_refit_s<=10": refit["seconds"] <= 10,
                "leaderboard_page_p95_ms<=25": figures["leaderboard_page"]["p95_ms"] <= 25,
                "home_p95_ms<=40": figures["home"]["p95_ms"] <= 40,
                "agent_page_busiest_p95_ms<=40": figures["agent_page_busiest"]["p95_ms"] <= 40,
                "history_page_p95_ms<=50": figures["history_page_busiest"]["p95_ms"] <= 50,
                "head_to_head_p95_ms<=50": figures["head_to_head_busiest"]["p95_ms"] <= 50,
                "head_to_head_page_p95_ms<=50": figures["head_to_head_page_busiest"]["p95_ms"]
                <= 50,
                "pair_page_p95_ms<=50": figures["pair_page_busiest"]["p95_ms"] <= 50,
                "matchmaking_s<=0.3 (bounded queue, median pass)": statistics.median(
                    p["total_s"] for p in bounded
                )
                <= 0.3,
            },
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--days", type=float, default=200.0, help="the matches span this")
    parser.add_argument("--requests", type=int, default=40, help="timed requests per page")
    parser.add_argument("--passes", type=int, default=3, help="matchmaking passes timed")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--explain", action="store_true", help="query plans on stderr")
    parser.add_argument(
        "--database-url",
        help="a running PostgreSQL database to use instead of a throw-away one: seeded when it "
        "holds no ladder, else reused as an earlier run seeded it (the seeding options are then "
        "ignored), so runs after the first skip the seeding",
    )
    args = parser.parse_args()
    if not args.database_url and not postgres_available():
        sys.exit("bench/scale.py needs PostgreSQL's server binaries (Debian: postgresql-15)")
    print(json.dumps(run(args), indent=2))


if __name__ == "__main__":
    main()

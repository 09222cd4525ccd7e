"""Every script in bench/ still runs and prints its JSON figures.

The benches import the platform's real code, so a refactoring that moves a function breaks them
without any other test noticing (``bench/match_log_bytes.py`` imported a ``match_run`` that had
moved to the workflows layer). Each runs here at the smallest size that goes through all of its
code; the figures themselves are not judged (targets live in the benches, not in tests).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from devtools.parts import postgres_available, redis_available
from tests.conftest import require_part

ROOT = Path(__file__).resolve().parents[1]

#: Script, quick arguments, keys its JSON must hold, and the real parts it needs.
BENCHES = [
    ("chess_search.py", ["--matches", "1"], {"p50_ms", "p95_ms", "moves"}, ()),
    ("engines.py", ["--matches", "2"], {"results"}, ()),
    (
        "house_bots_load.py",
        ["--games", "simple-card", "--load-per-core", "0"],
        {"worst_move_ms", "games", "busy_loops"},
        (),
    ),
    (
        "ratings_quality.py",
        ["--agents", "20", "--seeds", "1", "--spreads", "400"],
        {"populations"},
        (),
    ),
    (
        "tournament.py",
        ["--entrants", "20", "--seeds", "1", "--sweep", "0"],
        {"swiss", "round_robin", "swiss_tau_by_rounds"},
        (),
    ),
    (
        "match_log_bytes.py",
        ["--hands", "5"],
        {"before_per_call_rows", "after_one_blob", "db_bytes_ratio"},
        (),
    ),
    (
        "sandbox_turns.py",
        [
            "--backend",
            "process",
            "--samples",
            "3",
            "--calls",
            "20",
            "--throughput-s",
            "1",
            "--soak-matches",
            "2",
        ],
        {"backend", "details"},
        (),
    ),
    (
        "scale.py",
        ["--agents", "60", "--matches", "600", "--requests", "2", "--passes", "1"],
        {
            "pages",
            "matchmaking_pass_bounded_queue",
            "matchmaking_pass_unbounded",
            "unified_refit",
            "targets",
        },
        ("postgres",),
    ),
    (
        "challenge_burst.py",
        ["--entries", "2", "--seconds", "4", "--burst", "5", "--quota", "2"],
        {"alone", "with_burst", "ranked_ratio_with_burst", "targets"},
        (),
    ),
    (
        "llm_seats.py",
        [
            "--calls",
            "20",
            "--matches",
            "2",
            "--concurrency",
            "1,2",
            "--node-seconds",
            "3",
            "--model-threads",
            "2",
            "--code-think-s",
            "0.05",
        ],
        {"overhead_ms", "matches_per_minute", "node"},
        (),
    ),
    (
        "gateway_overhead.py",
        ["--backend", "process", "--calls", "20"],
        {"overhead_p50_ms", "overhead_p99_ms", "details"},
        (),
    ),
    (
        "sandbox_reuse.py",
        ["--seconds", "2", "--workers", "1", "--pool-size", "1"],
        {"paths", "ratios"},
        ("docker",),
    ),
    (
        "platform_flow.py",
        ["--uploads", "1", "--trainings", "1", "--ranked", "2", "--reuse", "on"],
        {"upload_to_accepted_s", "ranked_matches_per_minute", "runs"},
        ("redis",),
    ),
]


#: Each bench runs as a program of its own for up to minutes, some on Redis or PostgreSQL: slow,
#: and marked with the parts it needs (``make test-fast`` leaves them out).
BENCH_PARAMS = [
    pytest.param(
        *bench, marks=[pytest.mark.slow, *(getattr(pytest.mark, p) for p in bench[3])], id=bench[0]
    )
    for bench in BENCHES
]


@pytest.mark.parametrize(("script", "args", "keys", "parts"), BENCH_PARAMS)
def test_the_bench_runs_and_prints_json(
    script: str, args: list[str], keys: set[str], parts: tuple[str, ...]
) -> None:
    if "postgres" in parts:
        require_part(postgres_available(), "needs PostgreSQL's server binaries (postgresql)")
    if "redis" in parts:
        require_part(redis_available(), "needs redis-server")
    if "docker" in parts:
        from tests.sandbox.conftest import require_docker

        require_docker()
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'platform'}{os.pathsep}{ROOT}"}
    env.pop("DJANGO_SETTINGS_MODULE", None)  # each bench sets up its own throw-away platform
    # In a session of its own: a bench that overruns is killed with every worker and server it
    # started (killed alone, it would leave them running, orphaned, with no one to stop them).
    proc = subprocess.Popen(  # noqa: S603 (our own scripts)
        [sys.executable, str(ROOT / "bench" / script), *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        raise AssertionError(f"{script} ran over 300 s: {stderr[-3000:]}") from None
    done = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout)
    assert isinstance(figures, dict) and figures, done.stdout[:500]
    assert keys <= figures.keys(), sorted(figures)
    if script == "llm_seats.py":  # the thinking code agents played (their source is valid)
        node = figures["node"]
        assert node["code_think_s"] == 0.05
        assert (
            node["code_alone_before"]["code_finished"] + node["code_alone_after"]["code_finished"]
        ), node


#: Benches too long for the suite, each with the reason and the test that runs its code instead.
NOT_RUN_HERE = {
    # Ten minutes of the real local model judging; its game code runs in
    # tests/arena/llm/test_judges_real_model.py, its figures are in docs/games.md.
    "judge_injection.py",
}


def test_every_bench_script_is_run_above() -> None:
    """A new bench joins ``BENCHES``, or it could break unnoticed as match_log_bytes.py did."""
    scripts = {p.name for p in (ROOT / "bench").glob("*.py") if not p.name.startswith("_")}
    assert scripts - NOT_RUN_HERE == {b[0] for b in BENCHES}

"""Two ranked matches of one agent finishing at once lose no rating update (docs/architecture.md).

Runs on PostgreSQL (where ``select_for_update`` really locks rows) and on SQLite (where the
IMMEDIATE transactions serialise writers), each in separate processes as workers would be.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from devtools.parts import ROOT, manage, platform_env, postgres_available, postgres_server
from tests.conftest import require_part, wait_for

SCRIPT = str(Path(__file__).with_name("elo_race_script.py"))


@contextmanager
def database(kind: str, tmp_path: Path) -> Iterator[str]:
    if kind == "postgres":
        require_part(
            postgres_available(), "PostgreSQL server binaries (apt-get install postgresql)"
        )
        with postgres_server() as url:
            yield url
    else:
        yield f"sqlite:///{tmp_path / 'race.sqlite3'}"


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["postgres", "sqlite"])
def test_two_matches_of_one_agent_finishing_at_once_lose_no_update(
    kind: str, tmp_path: Path
) -> None:
    with database(kind, tmp_path) as url:
        env = platform_env(tmp_path, url, ARENA_CELERY_EAGER="0")
        manage(env, "migrate", "-v0")
        setup = subprocess.run(
            [sys.executable, SCRIPT, "setup"],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        ids = json.loads(setup.stdout.strip().splitlines()[-1])
        holding = tmp_path / "first-holds-the-rows"
        # The first holds the agent's rating row long enough for the second to start, play and
        # arrive at it (a second process starting on a busy host takes a few seconds).
        first = subprocess.Popen(
            [sys.executable, SCRIPT, "apply", str(ids["matches"][0]), "6", str(holding)],
            env=env,
            cwd=ROOT,
        )
        wait_for(
            lambda: holding.exists() or first.poll() is not None,
            timeout_s=120,
            what="the first process to hold the agent's rating row",
        )
        second = subprocess.Popen(
            [sys.executable, SCRIPT, "apply", str(ids["matches"][1]), "0"], env=env, cwd=ROOT
        )
        assert first.wait(timeout=60) == 0 and second.wait(timeout=60) == 0
        check = manage(
            env,
            "shell",
            "-c",
            "import json; from arena.ratings.models import Rating, RatingChange; "
            f"r = Rating.objects.get(submission_id={ids['agent']}); "
            "c = list(RatingChange.objects.filter(rating=r).order_by('id')"
            ".values('before', 'after')); "
            "print(json.dumps({'games': r.games, 'rating': r.rating, 'changes': c}))",
        )
        result = json.loads(check.strip().splitlines()[-1])
        assert result["games"] == 2
        first_change, second_change = result["changes"]
        assert second_change["before"] == first_change["after"]  # the second saw the first's update
        assert result["rating"] == second_change["after"]

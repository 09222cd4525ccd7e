"""Backup and restore (docs/operations.md): a ladder is backed up while matches are being
played and recorded, restored into a fresh database, and the restored site serves the same
leaderboards and replays; for PostgreSQL (``pg_dump -Fc``/``pg_restore``) and the SQLite default
(SQLite's online backup API), through ``manage.py arena_backup`` and ``arena_restore``."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from devtools.parts import (
    PROCESS_SANDBOX,
    ROOT,
    _pg_bin,
    manage,
    platform_env,
)
from tests.e2e.servers import postgres
from tests.e2e.test_worker_nodes import LADDER_STATE, _result, _wait

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

GAME = "simple-card"

#: Plays ranked house-bot matches of one ladder, inline (eager tasks), until killed.
PLAY_FOREVER = """
from django.db import transaction
from arena.ratings.services import ladder_pair
from arena.workflows.dispatch import matches_enqueue_on_commit
while True:
    with transaction.atomic():
        matches_enqueue_on_commit(ladder_pair(game={game!r}))
"""

PLAY_SOME = """
from django.db import transaction
from arena.matches.models import Match
from arena.ratings.services import ladder_pair
from arena.workflows.dispatch import matches_enqueue_on_commit
while Match.objects.filter(kind="ranked", status="finished").count() < {count}:
    with transaction.atomic():
        matches_enqueue_on_commit(ladder_pair(game={game!r}))
"""

#: What the site renders: the leaderboard page and its API, and every finished match's page
#: and log (its replay), with the per-request CSRF tokens taken out.
RENDER = """
import json, re
from django.test import Client
from arena.matches.models import Match
client = Client()
ids = sorted(Match.objects.filter(status="finished").values_list("pk", flat=True))
# The first and the last few (rendering every match page is slow on a busy machine).
shown = ids[:3] + ids[-3:]
pages = {{}}
for url in ["/games/{game}/", "/api/leaderboard/{game}?per_page=100"] + [
    u for pk in shown for u in (f"/matches/{{pk}}/", f"/api/matches/{{pk}}/log")
]:
    response = client.get(url)
    body = re.sub(
        r'(csrfmiddlewaretoken" value=|csrf-token" content=)"[^"]*"', r"\\1",
        response.content.decode(),
    )
    pages[url] = [response.status_code, body]
print("RESULT=" + json.dumps({{"ids": ids, "shown": shown, "pages": pages}}))
"""


def _env(var: Path, db_url: str) -> dict[str, str]:
    return platform_env(
        var,
        db_url,
        ARENA_CELERY_EAGER="1",
        **PROCESS_SANDBOX,
        ARENA_HOUSE_GAMES_PER_DAY="1000000",
        ARENA_MATCHMAKING_QUEUE_MAX="0",
        DJANGO_ALLOWED_HOSTS="testserver,127.0.0.1",
    )


@contextmanager
def _sqlite() -> Iterator[Any]:
    folder = Path(tempfile.mkdtemp(prefix="arena-backup-"))

    def fresh(name: str) -> str:
        return f"sqlite:///{folder / (name + '.sqlite3')}"

    yield fresh


@contextmanager
def _postgres() -> Iterator[Any]:
    with postgres() as url:
        base = url.rsplit("/", 1)[0]
        port = base.rsplit(":", 1)[1]

        def fresh(name: str) -> str:
            if name != "arena":
                subprocess.run(
                    [str(_pg_bin() / "createdb"), "-h", "127.0.0.1", "-p", port, "-U", "postgres",
                     name],
                    check=True,
                    capture_output=True,
                )  # fmt: skip
            return f"{base}/{name}"

        yield fresh


def _render(env: dict[str, str]) -> dict[str, Any]:
    return _result(manage(env, "shell", "-c", RENDER.format(game=GAME), timeout_s=300))


@pytest.mark.parametrize("engine", ["sqlite", "postgres"])
def test_a_running_ladder_is_backed_up_and_restored_whole(engine: str, tmp_path: Path) -> None:
    databases = _postgres() if engine == "postgres" else _sqlite()
    with databases as fresh:
        var = tmp_path / "var"
        source = _env(var, fresh("arena"))
        manage(source, "migrate", "--verbosity", "0")
        manage(source, "arena_setup", timeout_s=300)
        manage(source, "shell", "-c", PLAY_SOME.format(game=GAME, count=5), timeout_s=300)

        # 1. A backup while matches keep being played and rated in another process.
        writer = subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), "shell", "-c",
             PLAY_FOREVER.format(game=GAME)],
            env=source, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            before = _result(manage(source, "shell", "-c", LADDER_STATE.format(watch=[])))
            _wait(
                lambda: _result(manage(source, "shell", "-c", LADDER_STATE.format(watch=[])))[
                    "finished"
                ]
                > before["finished"],
                120,
                "the writer to record matches",
            )
            hot = tmp_path / "hot.backup"
            manage(source, "arena_backup", str(hot))
            assert writer.poll() is None, writer.stderr.read().decode() if writer.stderr else ""
        finally:
            writer.kill()
            writer.wait(timeout=30)
        restored_hot = _env(var, fresh("restored_hot"))
        manage(restored_hot, "arena_restore", str(hot))
        state = _result(manage(restored_hot, "shell", "-c", LADDER_STATE.format(watch=[])))
        # A consistent snapshot: every finished ranked match rated exactly once, chains whole.
        assert state["finished"] >= 5, state
        assert state["not_rated_once"] == [] and state["rated_unfinished"] == [], state
        assert state["bad_chains"] == [] and state["finished_unrated"] == 0, state
        # Each match it holds replays as it does on the live site.
        hot_pages = _render(restored_hot)
        live_pages = _result(
            manage(
                source,
                "shell",
                "-c",
                RENDER.format(game=GAME).replace(
                    "shown = ids[:3] + ids[-3:]", f"shown = {hot_pages['shown']!r}"
                ),
                timeout_s=300,
            )
        )
        for pk in hot_pages["shown"]:
            for url in (f"/matches/{pk}/", f"/api/matches/{pk}/log"):
                assert hot_pages["pages"][url] == live_pages["pages"][url], url

        # 2. With play stopped: the restored site serves exactly what the live one does.
        quiet = tmp_path / "quiet.backup"
        manage(source, "arena_backup", str(quiet))
        restored = _env(var, fresh("restored"))
        manage(restored, "arena_restore", str(quiet))
        again = _render(restored)
        live = _render(source)
        assert again["ids"] == live["ids"] and len(live["ids"]) >= 5
        for url, (status, body) in live["pages"].items():
            assert status == 200, url
            assert again["pages"][url] == [status, body], url
        leaderboard = json.loads(live["pages"][f"/api/leaderboard/{GAME}?per_page=100"][1])
        assert len(leaderboard["rows"]) >= 2, leaderboard

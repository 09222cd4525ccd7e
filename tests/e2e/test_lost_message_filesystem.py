"""``make run``'s embedded filesystem broker: a lost match message is found in seconds.

A taken message lives only in its worker there (the queue folder holds what waits), so the
sweeper reads the folder and asks the live workers what they hold. With a real worker on the
filesystem broker: a queued match whose message is nowhere is sent again after
``ARENA_MATCH_LOST_GRACE_S`` and played, while a match the worker holds (waiting out a retry's
countdown) is left alone; before, both waited for ``ARENA_MATCH_QUEUED_MAX_S`` (900 s).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from devtools.parts import (
    PROCESS_SANDBOX,
    ROOT,
    manage,
    platform_env,
    start_process,
    stop_processes,
)
from tests.conftest import wait_for
from tests.e2e.test_worker_nodes import _result

pytestmark = [pytest.mark.e2e]

#: Two training matches of house bots, stored as queued a minute ago: one never sent (its
#: message lost), one sent with a long countdown (a worker takes it and holds it meanwhile).
SEED = """
import json
from pathlib import Path
from datetime import timedelta
from django.utils import timezone
from arena.celery_app import app
from arena.matches.models import Match
from arena.submissions.services import house_submission_ensure
from arena.workflows.dispatch import MATCH_RUN_TASK, match_schedule
from arena.matches.queues import match_queue

house = house_submission_ensure(game="simple-card", bot="highest")
lost = match_schedule(kind="training", submissions=[house, house])
held = match_schedule(kind="training", submissions=[house, house])
# Both were sent as their transaction committed: their messages are lost here (no worker runs).
with app.connection_for_read() as conn:
    folder = Path(conn.default_channel.data_folder_in)
    for message in folder.glob("*.msg"):
        message.unlink()
app.tasks[MATCH_RUN_TASK].apply_async(args=[held.pk], queue=match_queue(held), countdown=600)
Match.objects.filter(pk__in=[lost.pk, held.pk]).update(
    enqueued=timezone.now() - timedelta(seconds=60)
)
print("RESULT=" + json.dumps({"lost": lost.pk, "held": held.pk}))
"""

VIEW = """
import json
from arena.workflows.lifecycle import broker_view

view = broker_view()
print("RESULT=" + json.dumps(sorted(view.in_workers) if view else None))
"""

SWEEP = """
import json
from arena.workflows.lifecycle import matches_sweep

print("RESULT=" + json.dumps(matches_sweep()))
"""

STATE = """
import json
from arena.matches.models import Match
print("RESULT=" + json.dumps({{
    str(m.pk): [m.status, m.attempts] for m in Match.objects.filter(pk__in={ids!r})
}}))
"""


def _shell(env: dict[str, str], script: str) -> Any:
    return _result(manage(env, "shell", "-c", script))


def test_a_lost_message_on_the_filesystem_broker_is_sent_again_in_seconds(tmp_path: Path) -> None:
    var = tmp_path / "var"
    env = platform_env(
        var,
        f"sqlite:///{var / 'arena.sqlite3'}",
        ARENA_MATCH_LOST_GRACE_S="5",
        ARENA_SWEEP_ASK_TIMEOUT_S="2",
        **PROCESS_SANDBOX,
    )
    assert "REDIS_URL" not in env
    manage(env, "migrate", "--verbosity", "0")
    seeded = _shell(env, SEED)
    lost, held = seeded["lost"], seeded["held"]
    log = (tmp_path / "worker.log").open("wb")
    worker = start_process(
        [sys.executable, str(ROOT / "manage.py"), "arena_worker", "--concurrency", "1"],
        env,
        log,
        new_session=True,
    )
    try:
        # The worker takes the held match's message to wait out its countdown; then one sweep
        # tells the two apart.
        in_workers = wait_for(
            lambda: (found := _shell(env, VIEW)) and held in found and found,
            timeout_s=120,
            every_s=1,
            what="the worker to hold a match",
        )
        assert lost not in in_workers, in_workers
        counts = _shell(env, SWEEP)
        assert counts["resent"] == 1, counts

        def played() -> Any:
            state = _shell(env, STATE.format(ids=[lost, held]))
            return state[str(lost)][0] == "finished" and state

        state = wait_for(played, timeout_s=120, every_s=1, what="the lost match to be played")
        assert state[str(held)] == ["queued", 0], state  # left to its countdown, not sent again
    finally:
        stop_processes(worker, timeout_s=60)
        log.close()

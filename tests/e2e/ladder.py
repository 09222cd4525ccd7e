"""A ranked ladder played by a real Celery worker, for the end-to-end tests that kill workers
(``test_fault_injection.py``) or run two platforms on one Docker engine
(``test_two_instances.py``): the scripts that set it up and read it back, and the worker and beat
processes, restartable as an operator would."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

from devtools.parts import celery_command, manage, start_process
from tests.conftest import wait_for

#: How long a worker has to say it is ready (Django, the broker, its pool processes) on a busy
#: CI host: generous, never a measurement.
WORKER_READY_S = 180.0

SETUP = """
import json
from arena.accounts.models import User
from arena.submissions.models import Submission
from arena.submissions.services import submission_create
from arena.workflows.submissions import submission_activate
from games.core import get_game_spec
source = get_game_spec("simple-card").starter_source()
for i in range({agents}):
    user = User.objects.create_user(username=f"fault{{i}}", password="pw-fault-123")
    s = submission_create(owner=user, source=source, name=f"agent{{i}}")
    # Validation is not under test here: accept directly, then activate through the workflow.
    Submission.objects.filter(pk=s.pk).update(status="accepted", status_detail="test")
    s.refresh_from_db()
    submission_activate(submission=s, user=user)
print(json.dumps({{"ok": True}}))
"""

STOP_LADDER = (
    "from arena.submissions.models import Submission; "
    "print(Submission.objects.update(active=False))"
)

REPORT = """
import json
from django.db.models import Count
from arena.matches.models import Match, Participant
from arena.ratings.models import Rating, RatingChange
m = Match.objects.all()
out = {
    "matches": m.count(),
    "by_status": dict(m.values_list("status").annotate(n=Count("id")).values_list("status", "n")),
    "unfinished": list(m.filter(status__in=["queued", "running"]).values_list("id", flat=True)),
    "max_attempts": max(list(m.values_list("attempts", flat=True)) or [0]),
    "replayed": m.filter(attempts__gt=1).count(),
    "finished_ranked": m.filter(kind="ranked", status="finished").count(),
    "unrated_finished_ranked": list(
        m.filter(kind="ranked", status="finished", rated=False).values_list("id", flat=True)),
    "rated_not_finished": list(
        m.filter(rated=True).exclude(status="finished").values_list("id", flat=True)),
    "double_rated": [
        r["match"] for r in RatingChange.objects.values("match").annotate(n=Count("id"))
        if r["n"] != 2
    ],
    "reasons": dict(Participant.objects.values_list("reason").annotate(n=Count("id"))
                    .values_list("reason", "n")),
    "crashed": [f"match {p.match_id} seat {p.seat}: {p.detail}"
                for p in Participant.objects.filter(reason="crash")],
    "chain_errors": [],
}
for rating in Rating.objects.all():
    changes = list(RatingChange.objects.filter(rating=rating).order_by("id"))
    value = 1200.0
    for c in changes:
        if abs(c.before - value) > 1e-9:
            out["chain_errors"].append(f"rating {rating.pk}: change {c.pk} starts off its chain")
        value = c.after
    if abs(value - rating.rating) > 1e-9 or rating.games != len(changes) \\
            or rating.wins + rating.losses + rating.draws != rating.games:
        out["chain_errors"].append(f"rating {rating.pk}: counters disagree with its changes")
print(json.dumps(out))
"""

#: What a worker runs when it starts: remove the containers of processes that are gone.
REAP = (
    "from arena.matches.sandboxing import remove_orphaned_agents; print(remove_orphaned_agents())"
)

#: The periodic reaper beat runs: the orphan sweep, then the containers of matches that are over.
REAP_MATCHES = "from arena.matches.sandboxing import sandboxes_reap; print(sandboxes_reap())"


def shell(env: dict[str, str], code: str) -> str:
    """Run ``code`` in ``manage.py shell``; its last line of output."""
    return manage(env, "shell", "-c", code, timeout_s=120).strip().splitlines()[-1]


def shell_results(env: dict[str, str], code: str) -> list[Any]:
    """Run ``code`` in ``manage.py shell`` (one start of Django for several scripts); the JSON
    of each line it printed after ``RESULT=``, in order."""
    out = manage(env, "shell", "-v", "0", "-c", code)
    return [
        json.loads(x.removeprefix("RESULT=")) for x in out.splitlines() if x.startswith("RESULT=")
    ]


def shell_result(env: dict[str, str], code: str) -> Any:
    """Run ``code`` in ``manage.py shell``; the JSON it printed last after ``RESULT=``."""
    return shell_results(env, code)[-1]


#: The game's house bots step off its ladder, so that matchmaking's next pass can only pair the
#: entries a test put there (on a fresh site all stand at 1200: with the house bots on, the pass
#: may pair either with a house bot). Prints how many stepped off.
HOUSE_OFF = """
from arena.submissions.models import Submission
n = Submission.objects.filter(agent__game={game!r}).exclude(house_bot="").update(active=False)
print("RESULT=" + str(n))
"""

#: One matchmaking pass over the game's ladder, as the beat's pass runs it (pair, then enqueue on
#: commit); the ids of the ranked matches it made.
PAIR = """
import json
from django.db import transaction
from arena.ratings.services import ladder_pair
from arena.workflows.dispatch import matches_enqueue_on_commit
with transaction.atomic():
    paired = ladder_pair(game={game!r})
    matches_enqueue_on_commit(paired)
print("RESULT=" + json.dumps([m.pk for m in paired]))
"""


def report(env: dict[str, str]) -> dict[str, Any]:
    """The ladder's state (``REPORT``)."""
    result: dict[str, Any] = json.loads(shell(env, REPORT))
    return result


class Worker:
    """A ``celery worker`` in its own process group, restartable as an operator would.

    Beat runs apart, once, as in deploy/ (``beat()``): embedded with ``-B`` it is one more child
    of the worker, and killing "a child" could kill the scheduler, and with it the sweeper."""

    def __init__(self, env: dict[str, str], var: Path) -> None:
        self.env, self.var = env, var
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = var / "worker.log"
        self.log = self.log_path.open("ab")
        self.starts = 0

    def beat(self) -> subprocess.Popen[bytes]:
        return start_process(
            celery_command("beat", "--loglevel", "INFO", "-s", str(self.var / "beat-schedule")),
            self.env,
            self.log,
            new_session=True,
        )

    def start(self) -> None:
        self.proc = start_process(
            celery_command(
                "worker",
                # No -Q: every queue of the worker's own instance (CELERY_TASK_QUEUES).
                "--concurrency",
                "2",
                "--loglevel",
                "INFO",
            ),
            self.env,
            self.log,
            new_session=True,
        )
        self.starts += 1

    def _ready_lines(self) -> int:
        # Celery says "celery@<host> ready." once its pool processes started; the log is shared
        # by every start of this worker, so count them.
        text = self.log_path.read_text(encoding="utf-8", errors="replace")
        return sum(1 for line in text.splitlines() if line.rstrip().endswith(" ready."))

    def wait_ready(self) -> None:
        """Wait until the worker started last said it is ready, or fail saying why not.

        A pool process killed before its worker is ready makes Celery give up the whole worker
        ("Could not start worker processes"): an operator kills processes of a running worker."""

        def ready() -> bool:
            assert self.proc is not None
            if self.proc.poll() is not None:
                tail = self.log_path.read_text(encoding="utf-8", errors="replace")[-3000:]
                raise AssertionError(f"the worker exited before it was ready:\n{tail}")
            return self._ready_lines() >= self.starts

        wait_for(ready, timeout_s=WORKER_READY_S, what="the worker to say it is ready", every_s=0.2)

    def children(self) -> list[int]:
        assert self.proc is not None
        found = subprocess.run(
            ["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True, check=False
        )
        return [int(p) for p in found.stdout.split()]

    def kill_child(self, turn: int) -> bool:
        """SIGKILL one pool child (and so whatever match it was playing, or none: an idle
        child waits for work holding the pool's job pipe lock, which arena.celery_filesystem makes
        a killed child give up)."""
        kids = self.children()
        if not kids:
            return False
        os.kill(kids[turn % len(kids)], signal.SIGKILL)
        return True

    def kill_all(self) -> None:
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)  # the worker's own session: our processes only
        self.proc.wait(timeout=20)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        # As an operator stops a worker: SIGTERM to its main process, a warm shutdown in which
        # every pool child drains its warm pool (a signal to the whole group races that).
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=20)

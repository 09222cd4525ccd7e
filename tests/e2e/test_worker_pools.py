"""``make run``'s worker pools with a real worker: while a long ranked match holds every slot of
the ranked pool, the maintenance worker keeps its period (sweeps, matchmaking passes) and a
training match is played at once on the interactive pool."""

from __future__ import annotations

import json
import re
import signal
import time
from pathlib import Path

import pytest

from devtools.parts import PROCESS_SANDBOX, free_port, manage, platform_env
from games.core import get_game_spec
from tests.e2e.test_make_run import (
    _children,
    _group,
    _kill_leftovers,
    _start_arena_run,
    _wait,
    _wait_up,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

#: The chess starter, thinking 1.5 s before every move: a ranked match of many minutes.
SLOW_SUFFIX = """

import time as _time

_Starter = Agent


class Agent(_Starter):
    def on_turn(self, round_state):
        _time.sleep(1.5)
        return super().on_turn(round_state)
"""

SETUP = """
import json
from arena.accounts.models import User
from arena.submissions.models import Agent, Submission
from arena.submissions.services import house_submission_ensure
from arena.workflows.dispatch import match_schedule
from games.core import get_game_spec
spec = get_game_spec("chess")
owner = User.objects.create_user("slow", password="slow-pass-123")
agent = Agent.objects.create(owner=owner, game="chess", name="slow")
mine = Submission.objects.create(agent=agent, version=1, source=open({path!r}).read(),
    sha256="0" * 64, game_version=spec.version, status="accepted")
bot = house_submission_ensure(game="chess", bot="random")
match = match_schedule(kind="ranked", submissions=[mine, bot])
print("RESULT=" + json.dumps(match.pk))
"""

TRAINING = """
import json
from arena.submissions.services import house_submission_ensure
from arena.workflows.dispatch import match_schedule
bots = [house_submission_ensure(game="simple-card", bot=b) for b in ("random", "highest")]
print("RESULT=" + json.dumps(match_schedule(kind="training", submissions=bots).pk))
"""


def _result(out: str) -> object:
    line = [x for x in out.splitlines() if x.startswith("RESULT=")][-1]
    return json.loads(line.removeprefix("RESULT="))


def _status(env: dict[str, str], match_id: int) -> str:
    code = (
        "import json; from arena.matches.models import Match; "
        f"print('RESULT=' + json.dumps(Match.objects.get(pk={match_id}).status))"
    )
    return str(_result(manage(env, "shell", "-c", code)))


def _done(log: Path, task: str) -> int:
    return len(re.findall(rf"Task {re.escape(task)}\[[^\]]+\] succeeded", log.read_text()))


def test_maintenance_and_training_go_on_while_every_ranked_slot_is_busy(tmp_path: Path) -> None:
    env = platform_env(
        tmp_path,
        f"sqlite:///{tmp_path / 'arena.sqlite3'}",
        # Agents run as processes: this test is about queues, not containers.
        **PROCESS_SANDBOX,
        ARENA_SWEEP_INTERVAL_S="2",
        ARENA_MATCHMAKING_INTERVAL_S="1",
        ARENA_INTERACTIVE_CONCURRENCY="1",
        # House bots stay off the ladder: the ranked slot is the slow match's alone.
        ARENA_HOUSE_GAMES_PER_DAY="0",
    )
    manage(env, "migrate", "--noinput", timeout_s=300)
    slow = tmp_path / "slow.py"
    slow.write_text(get_game_spec("chess").starter_source() + SLOW_SUFFIX)
    ranked = int(_result(manage(env, "shell", "-c", SETUP.format(path=str(slow)))))  # type: ignore[arg-type]
    port = free_port()
    log_path = tmp_path / "run.log"
    log = log_path.open("wb")
    # One ranked slot, which the slow match holds.
    proc = _start_arena_run(env, port, log, "--concurrency", "1")
    seen: set[int] = set()
    try:
        _wait_up(proc, port, log_path)
        for child in _children(proc.pid):
            seen.update(_group(child) or [child])
        _wait(lambda: _status(env, ranked) == "running", 180, "the slow ranked match to start")
        sweeps = _done(log_path, "arena.workflows.tasks.matches_sweep_task")
        passes = _done(log_path, "arena.workflows.tasks.matchmaking_task")
        training = int(_result(manage(env, "shell", "-c", TRAINING)))  # type: ignore[arg-type]
        _wait(
            lambda: _status(env, training) == "finished",
            120,
            "the training match, on the interactive pool, to finish",
        )
        # Maintenance keeps its period (a sweep every 2 s, a pass every second) meanwhile.
        _wait(
            lambda: _done(log_path, "arena.workflows.tasks.matches_sweep_task") >= sweeps + 3,
            60,
            "three more sweeps while the ranked slot is busy",
        )
        _wait(
            lambda: _done(log_path, "arena.workflows.tasks.matchmaking_task") >= passes + 3,
            60,
            "three more matchmaking passes while the ranked slot is busy",
        )
        assert _status(env, ranked) == "running", "the slow match ended: nothing was proven"
        for child in _children(proc.pid):
            seen.update(_group(child) or [child])
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=90) is not None
    finally:
        _kill_leftovers(proc, seen)
        log.close()
        print(log_path.read_text()[-20000:])  # shown when the test fails
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(_alive_pid(p) for p in seen):
        time.sleep(0.3)


def _alive_pid(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except OSError:
        return False

"""The supervisor of ``make run`` on plain processes: a child that dies takes its whole process
group with it and is started again while the other child keeps running; stopping ends every
group, also a child that ignores SIGTERM."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from arena.ops.management.commands import arena_run
from arena.ops.management.commands.arena_run import Child, Supervisor

from tests.conftest import wait_for

#: A parent that starts a child of its own (like the worker's embedded beat), writes both pids,
#: then sleeps; with ``stubborn`` it ignores SIGTERM.
FAMILY = """
import os, signal, subprocess, sys, time
if sys.argv[2] == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
kid = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open(sys.argv[1], "a") as f:
    f.write(f"{os.getpid()} {kid.pid}\\n")
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _pids(path: Path, lines: int, timeout_s: float = 120) -> list[list[int]]:
    def rows() -> list[list[int]]:
        found = [r.split() for r in path.read_text().splitlines()] if path.exists() else []
        return [[int(x) for x in row] for row in found] if len(found) >= lines else []

    return wait_for(
        rows, timeout_s=timeout_s, what=f"{lines} processes to write their ids to {path}"
    )


@pytest.fixture
def supervisor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Supervisor:
    removals: list[str] = []
    # Container clean-up is the sandbox's (tested there); here only that it is asked for.
    monkeypatch.setattr(arena_run, "_remove_containers", lambda say: removals.append("worker"))
    monkeypatch.setattr(arena_run, "HEALTHY_AFTER_S", 0.0)  # restart at once
    said: list[str] = []
    children = [
        Child("worker", [sys.executable, "-c", FAMILY, str(tmp_path / "worker"), "plain"]),
        Child("web", [sys.executable, "-c", FAMILY, str(tmp_path / "web"), "stubborn"]),
    ]
    sup = Supervisor(children, env=dict(os.environ), cwd=tmp_path, say=said.append)
    sup.said = said  # type: ignore[attr-defined]
    sup.removals = removals  # type: ignore[attr-defined]
    return sup


def test_a_dead_child_takes_its_group_along_and_comes_back(
    supervisor: Supervisor, tmp_path: Path
) -> None:
    for child in supervisor.children:
        supervisor.start(child)
    try:
        [(worker, beat)] = _pids(tmp_path / "worker", 1)
        [(web, web_kid)] = _pids(tmp_path / "web", 1)
        os.kill(worker, 9)

        def restarted() -> bool:
            supervisor.check()
            return len(_pids(tmp_path / "worker", 1)) >= 2

        wait_for(restarted, timeout_s=120, what="the supervisor to restart the killed worker")
        rows = _pids(tmp_path / "worker", 2)
        assert rows[1][0] not in (worker, beat)  # a new worker
        assert not _alive(beat), "the dead worker's own child outlived it"
        assert _alive(web) and _alive(web_kid), "the web server was touched"
        assert supervisor.removals == ["worker"]  # type: ignore[attr-defined]
        assert any("worker exited (-9)" in line for line in supervisor.said)  # type: ignore[attr-defined]
    finally:
        supervisor.stop(timeout_s=1.0)
    everyone = [
        pid for name in ("worker", "web") for row in _pids(tmp_path / name, 1) for pid in row
    ]
    wait_for(
        lambda: not [p for p in everyone if _alive(p)],
        timeout_s=60,
        what="every process to end after stop() (one outlived it)",
    )
    for child in supervisor.children:
        assert child.proc is not None and child.proc.poll() is not None


def test_a_child_that_keeps_dying_backs_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena_run, "_remove_containers", lambda say: None)
    said: list[str] = []
    child = Child("worker", [sys.executable, "-c", "raise SystemExit(3)"])
    sup = Supervisor([child], env=dict(os.environ), cwd=tmp_path, say=said.append)
    sup.start(child)
    assert child.proc is not None
    child.proc.wait(timeout=20)
    sup.check()
    first = child.next_start - time.monotonic()
    child.next_start = 0.0
    sup.check()  # restarts it
    assert child.proc is not None
    child.proc.wait(timeout=20)
    sup.check()
    second = child.next_start - time.monotonic()
    assert child.proc is None and second > first > 0, (first, second)
    assert said[0].startswith("worker exited (3)")


def test_the_worker_consumes_every_queue_the_settings_declare(settings) -> None:  # type: ignore[no-untyped-def]
    from arena.celery_app import worker_queues
    from arena.ops.management.commands.arena_worker import worker_argv

    settings.CELERY_TASK_DEFAULT_QUEUE = "celery"
    settings.CELERY_TASK_ROUTES = {
        "arena.matches.tasks.match_run_task": {"queue": "matches"},
        "arena.submissions.tasks.*": {"queue": "validation"},
        "arena.other.task": "other",
    }
    settings.CELERY_TASK_QUEUES = ["extra"]
    settings.ARENA_WORKER_QUEUES = ["matches", "slow"]
    assert worker_queues() == ["matches", "slow", "celery", "validation", "other", "extra"]
    argv = worker_argv(concurrency=3, node_name="n1@%h")
    assert argv[argv.index("-Q") + 1] == "matches,slow,celery,validation,other,extra"
    assert argv[argv.index("--concurrency") + 1] == "3"
    assert argv[argv.index("-n") + 1] == "n1@%h" and "-B" not in argv
    # Without a number the settings' CELERY_WORKER_CONCURRENCY decides (Celery reads it).
    assert "--concurrency" not in worker_argv()
    # Beat runs apart, never embedded in a worker (a worker child nobody would restart).
    from arena.ops.management.commands.arena_worker import beat_argv

    beat = beat_argv(schedule="/tmp/s")  # noqa: S108 - a name, nothing is written
    assert beat[beat.index("beat") + 1 : beat.index("beat") + 3] == ["-s", "/tmp/s"]


def test_a_child_that_dies_at_every_start_makes_it_give_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena_run, "_remove_containers", lambda say: None)
    monkeypatch.setattr(arena_run, "MAX_BACKOFF_S", 0.0)
    child = Child("web", [sys.executable, "-c", "raise SystemExit(4)"])
    sup = Supervisor([child], env=dict(os.environ), cwd=tmp_path, say=lambda text: None)
    sup.start(child)
    with pytest.raises(arena_run.GaveUp, match=r"web died 5 times .* --addr"):

        def checked() -> bool:
            sup.check()
            return False

        # Only GaveUp ends this wait; the bound says the supervisor never gave up.
        wait_for(checked, timeout_s=120, what="the supervisor to give up on web", every_s=0.05)


@pytest.mark.django_db
def test_a_local_model_that_keeps_dying_is_withdrawn_and_the_rest_runs_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The local model dying at every start (a build the CPU cannot run: SIGILL) ended the
    whole of make run; now it alone stops, and the judged games say they have no judge."""
    from arena.llm.judging import judge_status
    from arena.llm.localjudge import LOCAL_MODEL_NAME, local_judge_register, local_judge_withdraw
    from django.test import override_settings

    monkeypatch.setattr(arena_run, "_remove_containers", lambda say: None)
    monkeypatch.setattr(arena_run, "MAX_BACKOFF_S", 0.0)
    local_judge_register(base_url="http://127.0.0.1:9/v1")
    model = Child(
        "local model",
        [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGILL)"],
        on_give_up=local_judge_withdraw,
    )
    web = Child("web", [sys.executable, "-c", "import time; time.sleep(600)"])
    said: list[str] = []
    sup = Supervisor([model, web], env=dict(os.environ), cwd=tmp_path, say=said.append)
    for child in sup.children:
        sup.start(child)
    try:

        def withdrawn() -> bool:
            sup.check()
            return model.given_up

        wait_for(withdrawn, timeout_s=120, what="the local model to be withdrawn", every_s=0.05)
        for _ in range(20):  # and never started again, while web runs on
            sup.check()
            time.sleep(0.02)
        assert model.proc is None and model.restarts == arena_run.MAX_QUICK_DEATHS - 1
        assert web.proc is not None and web.proc.poll() is None
    finally:
        sup.stop(timeout_s=10)
    assert "local model died 5 times" in said[-1] and "(last exit: -4;" in said[-1]
    assert "is disabled, so the judged games show no judge" in said[-1]
    with override_settings(ARENA_JUDGE_MODEL=LOCAL_MODEL_NAME):
        assert "disabled" in (judge_status("passcode").reason or "")


def test_web_listens_on_a_socket_the_supervisor_holds_and_a_port_in_use_is_said_at_once() -> None:
    import socket

    from django.core.management.base import CommandError

    held = arena_run.listen("127.0.0.1:0")
    try:
        port = held.getsockname()[1]
        # Connections wait in its backlog while no gunicorn accepts: never refused.
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
        with pytest.raises(CommandError, match="--addr"):
            arena_run.listen(f"127.0.0.1:{port}")
    finally:
        held.close()


#: A worker that, told to stop, finishes its match for a second first, and writes whether the
#: service it calls (the local model) still ran then.
FINISHING_WORKER = """
import os, signal, sys, time
out, served = sys.argv[1], sys.argv[2]
def finish(*_):
    time.sleep(1)
    pid = int(open(served).read())
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        state = "gone"
    open(out, "w").write("gone" if state in ("gone", "Z") else "serving")
    sys.exit(0)
signal.signal(signal.SIGTERM, finish)
open(out + ".ready", "w").write("1")
time.sleep(600)
"""

SERVICE = """
import os, sys, time
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(600)
"""


def test_the_local_model_is_stopped_after_the_workers_that_call_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A judged match still playing while make run stops keeps its judge to the end: a judge
    gone first failed it as the platform's error and used up one of its attempts."""
    monkeypatch.setattr(arena_run, "_remove_containers", lambda say: None)
    monkeypatch.setattr(arena_run, "sandboxes_remove_of_processes", lambda pids: 0)
    monkeypatch.setattr(arena_run, "matches_requeue_interrupted", lambda **_: 0)
    out, served = tmp_path / "worker", tmp_path / "served"
    worker = Child("worker", [sys.executable, "-c", FINISHING_WORKER, str(out), str(served)])
    model = Child("local model", [sys.executable, "-c", SERVICE, str(served)], stops_last=True)
    sup = Supervisor([model, worker], env=dict(os.environ), cwd=tmp_path, say=lambda text: None)
    for child in sup.children:
        sup.start(child)
    wait_for(
        lambda: served.exists() and Path(f"{out}.ready").exists(),
        timeout_s=60,
        what="both children to start",
    )
    sup.stop(timeout_s=30)
    assert out.read_text() == "serving"
    assert model.proc is not None and model.proc.poll() is not None  # and then it was stopped


def test_the_workers_wait_for_the_local_model_to_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started with the workers, the local model (10-30 s to load) failed the first judged
    matches as platform errors: the workers now start once it answers ``GET /v1/models``, and
    not later than ``LOCAL_MODEL_WAIT_S`` or its process's end."""
    import http.server
    import socket
    import threading

    class Models(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/v1/models" else 404)
            self.end_headers()
            self.wfile.write(b'{"data": []}')

        def log_message(self, *args: object) -> None:
            pass

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = arena_run.Command()
    command.local_model_url = f"http://127.0.0.1:{port}/v1"
    loading = Child("local model", [sys.executable, "-c", "import time; time.sleep(600)"])
    sup = Supervisor([loading], env=dict(os.environ), cwd=tmp_path, say=lambda text: None)
    sup.start(loading)
    server = http.server.HTTPServer(("127.0.0.1", port), Models)
    # The model answers only after a while: the wait must last until then.
    timer = threading.Timer(1.5, lambda: threading.Thread(target=server.serve_forever).start())
    said: list[str] = []
    try:
        timer.start()
        started = time.monotonic()
        command._await_local_model(loading, said.append)
        waited = time.monotonic() - started
    finally:
        timer.cancel()
        server.shutdown()
        server.server_close()
    assert waited >= 1.4 and said[-1].startswith("the local model answers"), (waited, said)
    # A model that never answers holds the workers back only so long...
    monkeypatch.setattr(arena_run, "LOCAL_MODEL_WAIT_S", 1.0)
    said.clear()
    command._await_local_model(loading, said.append)
    assert "did not answer within 1 s" in said[-1]
    # ... and not at all once its process has ended.
    monkeypatch.setattr(arena_run, "LOCAL_MODEL_WAIT_S", 600.0)
    sup.stop(timeout_s=10)
    said.clear()
    started = time.monotonic()
    command._await_local_model(loading, said.append)
    assert time.monotonic() - started < 5 and "ended while loading" in said[-1]

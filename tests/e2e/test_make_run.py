"""``make run`` (manage.py arena_run): the embedded set-up comes up with SQLite and the
filesystem broker under gunicorn, answers 50 simultaneous requests without dropping one, survives
``kill -9`` of its worker (its pool dies with it, the worker comes back, the site keeps answering,
matches go on) and of beat (it comes back alone, matchmaking resumes), and Ctrl-C stops every
process and leaves no agent container."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import pytest

from arena_cli.submit_cmd import api_request, get_token, upload, wait_for_status
from devtools.parts import ROOT, free_port, manage, platform_env, start_process, wait_http
from games.core import get_game_spec
from tests.arena.ops.test_arena_run import _alive
from tests.conftest import require_part, wait_for
from tests.e2e.conftest import http_get

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

GAME = "simple-card"


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(x) for x in out.stdout.split()]


def _group(pgid: int) -> list[int]:
    """Every live process of process group ``pgid``."""
    out = subprocess.run(["ps", "-eo", "pid=,pgid="], capture_output=True, text=True)
    pairs = [line.split() for line in out.stdout.splitlines() if line.strip()]
    return [int(pid) for pid, group in pairs if int(group) == pgid]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _wait(check: Callable[[], Any], timeout_s: float, what: str) -> Any:
    return wait_for(check, timeout_s=timeout_s, what=what, every_s=0.3)


def _kill_leftovers(proc: subprocess.Popen[bytes], seen: set[int]) -> None:
    """After a failed test: arena_run's group and every process it had, killed."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    for pid in seen:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _start_arena_run(
    env: dict[str, str], port: int, log: IO[bytes], *args: str
) -> subprocess.Popen[bytes]:
    """``manage.py arena_run`` serving on 127.0.0.1:``port``, in a process group of its own."""
    return start_process(
        [
            sys.executable,
            str(ROOT / "manage.py"),
            "arena_run",
            "--addr",
            f"127.0.0.1:{port}",
            *args,
        ],
        env,
        log,
        new_session=True,
    )


def _wait_up(proc: subprocess.Popen[bytes], port: int, log_path: Path) -> None:
    """Until ``make run`` serves pages on ``port`` (its web socket is bound before gunicorn runs),
    as long as it lives and works: minutes on a loaded host."""
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz", process=proc)
    except RuntimeError as exc:
        raise AssertionError(f"{exc}\n{log_path.read_text()[-5000:]}") from exc


def _get(url: str) -> tuple[int, bytes]:
    status, body, _ = http_get(url, timeout_s=30)
    return status, body


def _concurrent_gets(urls: list[str]) -> tuple[list[int], list[str]]:
    """GET every URL at once (one thread each, released together): statuses and errors."""
    statuses: list[int] = []
    errors: list[str] = []
    barrier = threading.Barrier(len(urls))
    lock = threading.Lock()

    def one(url: str) -> None:
        barrier.wait()
        try:
            status, _ = _get(url)
        except (OSError, urllib.error.URLError) as exc:  # reset, refused, timed out
            with lock:
                errors.append(f"{url}: {exc!r}")
            return
        with lock:
            statuses.append(status)

    threads = [threading.Thread(target=one, args=(u,)) for u in urls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return statuses, errors


def _celery_pid(run_pid: int, command: str, role: str = "matches-tournament") -> int | None:
    """The live child of ``make run`` running ``celery ... <command>`` (beat, or the worker of
    queue ``role``: the ranked pool by default)."""
    found = [
        p
        for p in _children(run_pid)
        if "celery" in _cmdline(p)
        and command in _cmdline(p).split()
        and (command != "worker" or f"-{role}@" in _cmdline(p))
        and _alive(p)
    ]
    return found[0] if found else None


def _query(env: dict[str, str], code: str) -> Any:
    """Evaluate ``code`` (an expression over the models) in ``manage.py shell``; JSON result."""
    out = manage(
        env,
        "shell",
        "-c",
        "import json; from arena.matches.models import Match; "
        f"print('RESULT=' + json.dumps({code}))",
    )
    line = [x for x in out.splitlines() if x.startswith("RESULT=")][-1]
    return json.loads(line.removeprefix("RESULT="))


def _ranked_finished(env: dict[str, str], submission_id: int) -> int:
    return int(
        _query(
            env,
            "Match.objects.filter(kind='ranked', status='finished', "
            f"participants__submission_id={submission_id}).count()",
        )
    )


def _sandbox_containers_of(pids: set[int]) -> list[str]:
    """Agent containers (by their owner label, host:pid) created by one of ``pids``."""
    try:
        import docker

        client = docker.from_env()
        containers = client.api.containers(all=True, filters={"label": "arena.sandbox"})
    except Exception:  # no engine: the process sandbox ran the agents, no container exists
        return []
    host = socket.gethostname()
    owners = {f"{host}:{pid}" for pid in pids}
    return [
        c["Id"][:12]
        for c in containers
        if (c.get("Labels") or {}).get("arena.sandbox.owner", "") in owners
    ]


def _sign_up_and_upload(
    env: dict[str, str], url: str, tmp_path: Path, name: str
) -> tuple[str, int]:
    manage(
        env,
        "shell",
        "-c",
        "from arena.accounts.models import User; "
        f"User.objects.create_user('{name}', password='{name}-pass-123')",
    )
    token = get_token(url, name, f"{name}-pass-123")
    agent = tmp_path / f"{name}.py"
    agent.write_text(get_game_spec(GAME).starter_source())
    submission = wait_for_status(url, token, upload(url, token, agent)["id"], timeout_s=180)
    assert submission["status"] == "accepted", submission
    return token, int(submission["id"])


def test_arena_run_serves_survives_a_killed_worker_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    port = free_port()
    env = platform_env(
        tmp_path,
        f"sqlite:///{tmp_path / 'arena.sqlite3'}",
        ARENA_ALLOW_PROCESS_SANDBOX="1",
        ARENA_MATCHMAKING_INTERVAL_S="1",
        # This run is about its own children: no local model judging (its loading and the
        # judged games' calls would share the run's one worker slot and two cores).
        ARENA_JUDGE_MODEL="not-registered",
    )
    log = (tmp_path / "run.log").open("wb")
    proc = _start_arena_run(env, port, log, "--concurrency", "1")
    seen: set[int] = set()  # every process of the run, to check none outlives it

    def remember() -> None:
        for child in _children(proc.pid):
            seen.update(_group(child) or [child])

    url = f"http://127.0.0.1:{port}"
    try:
        _wait_up(proc, port, tmp_path / "run.log")
        # The ranked (and tournament), interactive (training, validation), maintenance and model
        # workers, beat, web; and where `make llm-server` installed it, the local model that
        # judges the judged games.
        children = [c for c in _children(proc.pid) if "llama_cpp.server" not in _cmdline(c)]
        assert len(children) == 6, [_cmdline(c) for c in children]
        for role in ("matches-tournament", "training-validation", "maintenance", "llm"):
            assert _celery_pid(proc.pid, "worker", role) is not None, role
        assert _celery_pid(proc.pid, "beat") is not None, [_cmdline(c) for c in children]
        assert any("gunicorn" in _cmdline(c) for c in children), [_cmdline(c) for c in children]
        remember()

        # 50 simultaneous requests: pages and a static file (WhiteNoise), none dropped.
        css = (ROOT / "static" / "arena" / "site.css").read_bytes()
        status, body = _get(f"{url}/static/arena/site.css")
        assert (status, body) == (200, css)
        assert _get(f"{url}/static/%2e%2e/manage.py")[0] == 404  # only collected files
        statuses, errors = _concurrent_gets(
            [f"{url}/" if i % 2 else f"{url}/static/arena/site.css" for i in range(50)]
        )
        assert errors == [], f"{len(errors)} of 50 requests failed: {errors[:3]}"
        assert statuses == [200] * 50

        token, first = _sign_up_and_upload(env, url, tmp_path, "fay")
        assert (tmp_path / "broker").is_dir()  # the filesystem transport carried the task
        api_request(url, "POST", f"/api/submissions/{first}/activate", token=token)
        _wait(lambda: _ranked_finished(env, first) >= 1, 180, "a ranked match of fay's agent")

        # kill -9 of the worker: its pool processes die with it, a new worker starts.
        worker = _celery_pid(proc.pid, "worker")
        assert worker is not None
        remember()
        old_group = _group(worker)
        assert len(old_group) >= 2, old_group  # main process and pool process(es)
        os.kill(worker, signal.SIGKILL)
        answered: list[int] = []
        new_worker = None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            answered.append(_get(f"{url}/")[0])  # the site keeps answering meanwhile
            candidate = _celery_pid(proc.pid, "worker")
            if candidate not in (None, worker) and not any(_alive(p) for p in old_group):
                new_worker = candidate
                break
            time.sleep(0.5)
        left = [p for p in old_group if _alive(p)]
        assert not left, f"processes of the killed worker outlived it: {left}"
        assert new_worker is not None, "the worker was not restarted"
        assert answered and set(answered) == {200}, answered
        assert proc.poll() is None, "make run stopped with its worker"
        _wait(lambda: len(_group(new_worker)) >= 2, 60, "the new worker's pool")
        remember()

        # kill -9 of beat: it comes back on its own (matchmaking below needs it), alone.
        beat = _celery_pid(proc.pid, "beat")
        assert beat is not None
        os.kill(beat, signal.SIGKILL)
        new_beat = _wait(
            lambda: (p := _celery_pid(proc.pid, "beat")) not in (None, beat) and p,
            60,
            "beat to be restarted",
        )
        assert _celery_pid(proc.pid, "worker") == new_worker, "a dead beat took the worker along"
        assert _get(f"{url}/")[0] == 200
        seen.add(new_beat)
        remember()

        # Matches go on: a new upload is validated and plays ranked on the new worker.
        token2, second = _sign_up_and_upload(env, url, tmp_path, "gus")
        api_request(url, "POST", f"/api/submissions/{second}/activate", token=token2)
        _wait(lambda: _ranked_finished(env, second) >= 1, 180, "a ranked match after the kill")
        remember()
        assert _get(f"{url}/")[0] == 200

        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in the terminal does
        assert proc.wait(timeout=60) is not None
        _wait(lambda: not [p for p in seen if _alive(p)], 30, "every child to stop")
        assert _sandbox_containers_of(seen | {proc.pid}) == [], "agent containers outlived it"
    finally:
        _kill_leftovers(proc, seen)
        log.close()
    text = (tmp_path / "run.log").read_text()
    assert "Agent Arena is up on" in text
    assert "worker exited (-9)" in text and "beat exited (-9)" in text


def test_arena_run_started_in_the_background_stops_on_sigint(tmp_path: Path) -> None:
    """``make run &`` from a script starts it with SIGINT ignored (POSIX shells do that to
    background jobs); ``kill -INT`` must still stop web, worker and beat."""
    port = free_port()
    env = platform_env(
        tmp_path, f"sqlite:///{tmp_path / 'arena.sqlite3'}", ARENA_ALLOW_PROCESS_SANDBOX="1"
    )
    log = (tmp_path / "run.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "arena_run", "--addr", f"127.0.0.1:{port}"],
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),  # noqa: PLW1509
    )
    seen: set[int] = set()
    try:
        _wait_up(proc, port, tmp_path / "run.log")
        for child in _children(proc.pid):
            seen.update(_group(child) or [child])
        assert len(seen) >= 3
        os.kill(proc.pid, signal.SIGINT)  # arena_run alone, not its process group
        assert proc.wait(timeout=60) is not None
        _wait(lambda: not [p for p in seen if _alive(p)], 30, "every child to stop")
    finally:
        _kill_leftovers(proc, seen)
        log.close()
    assert "stopping" in (tmp_path / "run.log").read_text()


#: An agent that thinks 30 s a move against the house bot ``highest`` (its untimed training match
#: runs a minute and a half, long enough to be seen running and cut by a stop however slowly a
#: loaded host answers) and plays at once against itself (its validation is quick).
SLOW_TRAINEE = """
import time

GAME = "simple-card"


class Agent:
    def __init__(self):
        self.slow = False

    def on_match_start(self, match_info):
        self.slow = "highest" in str(match_info.get("opponent_name"))

    def on_turn(self, state):
        if self.slow:
            time.sleep(30)
        return {"type": "play_card", "card": state["hand"][0]}
"""


def _instance_containers(instance: str) -> list[str]:
    """Every sandbox container of ``instance`` (whatever its state), as "name state"; only this
    test's instance is ever listed."""
    out = subprocess.run(
        [
            "docker",
            "ps",
            "-a",
            "--filter",
            f"label=arena.instance={instance}",
            "--format",
            "{{.Names}} {{.State}}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return sorted(line for line in out.stdout.splitlines() if line.strip())


def _match_row(env: dict[str, str], match_id: int) -> dict[str, Any]:
    return dict(
        _query(
            env,
            f"(lambda m: {{'status': m.status, 'attempts': m.attempts, 'error': m.error, "
            f"'outcomes': [p.outcome for p in m.participants.all()]}})"
            f"(Match.objects.get(pk={match_id}))",
        )
    )


def _stop_with_ctrl_c(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C on `make run` does: the whole group
    proc.wait(timeout=180)


def test_ctrl_c_mid_match_leaves_no_container_and_the_cut_match_is_played_again(
    tmp_path: Path,
) -> None:
    from tests.e2e.test_fault_injection import IMAGE, _docker_ready

    require_part(_docker_ready(), f"a Docker engine with the {IMAGE} image (make image)")
    port = free_port()
    env = platform_env(
        tmp_path,
        f"sqlite:///{tmp_path / 'arena.sqlite3'}",
        ARENA_SANDBOX_BACKEND="docker",
        ARENA_SANDBOX_POOL_SIZE="2",
        # The house bots' own ladder stays quiet: only the training match runs.
        ARENA_MATCHMAKING_INTERVAL_S="3600",
    )
    instance = env["ARENA_INSTANCE_ID"]
    assert _instance_containers(instance) == []
    url = f"http://127.0.0.1:{port}"
    args = ("--concurrency", "1", "--stop-timeout", "3")
    log = (tmp_path / "run.log").open("wb")
    proc = _start_arena_run(env, port, log, *args)
    try:
        _wait_up(proc, port, tmp_path / "run.log")
        manage(
            env,
            "shell",
            "-c",
            "from arena.accounts.models import User; "
            "User.objects.create_user('ida', password='ida-pass-123')",
        )
        token = get_token(url, "ida", "ida-pass-123")
        agent = tmp_path / "slow.py"
        agent.write_text(SLOW_TRAINEE)
        submission = wait_for_status(url, token, upload(url, token, agent)["id"], timeout_s=240)
        assert submission["status"] == "accepted", submission
        started = api_request(
            url,
            "POST",
            "/api/training",
            token=token,
            body={"submission": submission["id"], "opponent": "house:highest", "timed": False},
        )
        match_id = int(started["match"])

        def running_in_its_container() -> bool:
            status = _match_row(env, match_id)["status"]
            assert status in ("queued", "running"), f"the match ended before the stop: {status}"
            bound = any(f"-match-{match_id}-" in c for c in _instance_containers(instance))
            return status == "running" and bound

        # A bound, not a measurement: a loaded host validates and starts slowly.
        _wait(running_in_its_container, 600, "the training match to run in its container")
        before = _instance_containers(instance)
        _stop_with_ctrl_c(proc)
        after = _instance_containers(instance)
        print(f"containers of {instance} before Ctrl-C: {before}; after: {after}")
        assert after == [], f"containers outlived the stop (before it: {before})"
        row = _match_row(env, match_id)
        assert row["status"] == "queued", row  # handed back, not forfeited nor left running
        assert row["attempts"] == 0 and row["outcomes"] == ["", ""], row
        assert "stopped" in row["error"], row

        # The next start plays it again, to the end.
        log.close()
        log = (tmp_path / "run2.log").open("wb")
        proc = _start_arena_run(env, port, log, *args)
        _wait_up(proc, port, tmp_path / "run2.log")
        _wait(lambda: _match_row(env, match_id)["status"] == "finished", 600, "the replay")
        row = _match_row(env, match_id)
        assert row["attempts"] == 1 and sorted(row["outcomes"]) in (["loss", "win"], ["draw"] * 2)
        _stop_with_ctrl_c(proc)
        assert _instance_containers(instance) == []
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
        # Only this test's instance: nothing another engineer or test made is touched.
        for line in _instance_containers(instance):
            subprocess.run(["docker", "rm", "-f", line.split()[0]], capture_output=True)
    text = (tmp_path / "run.log").read_text()
    assert "queued again" in text, text[-3000:]


def test_a_web_restart_never_refuses_a_health_probe(tmp_path: Path) -> None:
    """Web's master gets SIGTERM (an operator, the OOM killer's cousin): ``make run`` starts a new
    one on the socket it holds, and every probe sent meanwhile is answered, none refused."""
    port = free_port()
    env = platform_env(
        tmp_path, f"sqlite:///{tmp_path / 'arena.sqlite3'}", ARENA_ALLOW_PROCESS_SANDBOX="1"
    )
    log = (tmp_path / "run.log").open("wb")
    proc = _start_arena_run(env, port, log, "--concurrency", "1")
    seen: set[int] = set()
    url = f"http://127.0.0.1:{port}/healthz"
    try:
        _wait_up(proc, port, tmp_path / "run.log")
        assert _get(url)[0] == 200

        def web_master() -> int | None:
            found = [p for p in _children(proc.pid) if "gunicorn" in _cmdline(p) and _alive(p)]
            return found[0] if found else None

        master = web_master()
        assert master is not None
        for child in _children(proc.pid):
            seen.update(_group(child) or [child])
        answers: list[int] = []
        failures: list[str] = []
        restarted = False
        # A bounded number of probes, one every 0.2 s; each may wait (a new master loads Django
        # under load) but must be answered.
        for index in range(60):
            if index == 5:
                os.kill(master, signal.SIGTERM)
            try:
                status, _, _ = http_get(url, timeout_s=120)
                answers.append(status)
            except (OSError, urllib.error.URLError) as exc:
                failures.append(repr(exc))
            new = web_master()
            if index > 5 and new not in (None, master):
                restarted = True
                seen.update(_group(new) or [new])
                if len(answers) + len(failures) >= 20:
                    break
            time.sleep(0.2)
        assert restarted, "web was not started again"
        assert failures == [], f"{len(failures)} probes failed: {failures[:3]}"
        assert set(answers) == {200}, answers
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=120) is not None
        _wait(lambda: not [p for p in seen if _alive(p)], 30, "every child to stop")
    finally:
        _kill_leftovers(proc, seen)
        log.close()
    assert "web exited" in (tmp_path / "run.log").read_text()

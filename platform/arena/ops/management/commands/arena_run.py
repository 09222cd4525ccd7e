"""``make run``: the embedded platform in one command (README.md, "Quick start").

Migrates, loads the demo data once (house bots on every ladder), collects the static files, then
starts and supervises six children, as deploy/ runs them on a server: the four worker pools of
``arena_worker.POOLS``, beat and web.

- **worker**: a Celery worker on the ranked and tournament queues (``--concurrency`` processes);
- **interactive worker**: a Celery worker on the training and validation queues, with slots of
  its own (``ARENA_INTERACTIVE_CONCURRENCY``), so a training match or an upload's validation
  never waits behind the ladder's games;
- **maintenance worker**: one process on the maintenance queue (matchmaking, sweeper, reaper,
  log upkeep), which keeps its period when every match slot is busy;
- **model worker**: threads on the ``llm`` queue (``ARENA_LLM_CONCURRENCY``): a match with a
  language-model seat waits on its provider most of the time (docs/llm-seats.md);
- **beat**: Celery beat, which enqueues matchmaking and the platform's periodic tasks (sweeper,
  reaper, log maintenance);
- **web**: gunicorn (``deploy/gunicorn.conf.py``) on http://127.0.0.1:8000, static files through
  WhiteNoise. The supervisor binds the listening socket itself, once, and hands it to each
  gunicorn it starts (``--bind fd://N``): when web dies and is started again (the only time
  ``make run`` restarts it), connections wait in the socket's backlog for the new master instead
  of being refused, so the site answers through a restart, only slower. A port already in use is
  said at once. To reload web on purpose (new code), send SIGHUP to gunicorn's master: gunicorn
  replaces its workers itself, on the same socket.

Each child runs in its own process group. When one dies, its whole group is killed (a worker's pool
processes die with it), the containers a dead worker's agents ran in are removed, and it is started
again after a back-off, while the others keep running: the site stays up while the worker restarts,
and matches go on while beat restarts (a beat embedded in the worker with ``-B`` would be a worker
child nobody restarts when it alone dies). Where the local model judges the judged games (a seventh
child), web and the model start first and the rest once the model answers (``LOCAL_MODEL_WAIT_S``
at most), so the first judged matches find their judge. Ctrl-C (or SIGTERM) stops all gracefully
and kills what is left after ``--stop-timeout`` seconds; then nothing of the run is left: every
agent container its workers made (warm pool and match containers, running or exited) is removed,
and a match cut by the stop is queued again at once, its attempt given back (a stop is nobody's
failure: no forfeit, no rating). A run killed without a clean stop is tidied when the next one
starts: before the workers start, the running matches no live worker claims are queued again, and
each worker removes the containers of dead processes when it starts. The supervisor is the "child
subreaper" of its tree (Linux), so the pool processes of a worker it killed are reaped by it
instead of staying zombies under a PID 1 that reaps nothing (a container's or a micro-VM's), which
would make their containers look owned for good. The broker is kombu's filesystem transport unless
``REDIS_URL`` is set.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from arena.llm.localjudge import (
    LOCAL_MODEL_NAME,
    local_judge_register,
    local_judge_withdraw,
    local_model_argv,
)
from arena.matches.sandboxing import (
    PROCESS_WARNING,
    detected_backend,
    remove_orphaned_agents,
    sandboxes_remove_of_processes,
)
from arena.ops.management.commands.arena_worker import (
    POOL_ENV,
    POOL_EXTRA,
    POOLS,
    beat_argv,
    child_env,
    worker_argv,
)
from arena.workflows.lifecycle import matches_requeue_interrupted

#: A child that ran this long before dying starts again at once; quicker deaths back off.
HEALTHY_AFTER_S = 30.0
#: The longest wait between two restarts of a child that keeps dying.
MAX_BACKOFF_S = 30.0
#: Deaths in a row, each soon after its start, after which ``make run`` gives up.
MAX_QUICK_DEATHS = 5
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
#: How long the stop waits for killed processes to be gone before it cleans up after them.
REAP_WAIT_S = 10.0
#: Connections the web socket holds while no gunicorn accepts (gunicorn's own default).
WEB_BACKLOG = 2048
#: How long the workers wait, at start, for the local model to answer (it loads in 10-30 s):
#: started together, the first judged matches found no judge and ended in platform errors.
LOCAL_MODEL_WAIT_S = 90.0


class _Stop(Exception):
    """SIGTERM or SIGHUP reached the supervisor: stop like Ctrl-C."""


class GaveUp(Exception):
    """A child died right after every start: restarting it again would not help."""


def _raise_stop(signum: int, _frame: Any) -> None:
    raise _Stop(signal.Signals(signum).name)


def _die_with_parent() -> None:
    """In the child before exec: get SIGTERM if the supervisor itself is killed (Linux)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def _become_subreaper() -> None:
    """Adopt the orphans of this tree (Linux): a killed worker's pool processes are reparented
    here and reaped by ``_reap``, instead of by a PID 1 that may never reap them."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _reap(besides: set[int] | None = None) -> None:
    """Collect the exit status of the children that have ended (adopted orphans included), all
    of them or, with ``besides``, all but those (the supervised children, whose status their
    ``Popen`` reads)."""
    if besides is None:
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        return
    me = os.getpid()
    for pid, state, ppid in _processes():
        if ppid == me and state == "Z" and pid not in besides:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)


def _processes() -> list[tuple[int, str, int]]:
    """(pid, state, ppid) of every process of this machine (Linux ``/proc``; empty elsewhere)."""
    found: list[tuple[int, str, int]] = []
    proc = Path("/proc")
    for entry in proc.iterdir() if proc.is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if len(fields) > 2:
            found.append((int(entry.name), fields[0], int(fields[1])))
    return found


def _group_members(pgids: set[int]) -> set[int]:
    """The live (not zombie) processes of the process groups ``pgids`` (Linux ``/proc``)."""
    members: set[int] = set()
    proc = Path("/proc")
    for entry in proc.iterdir() if proc.is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        # After the command: state, ppid, pgrp.
        if len(fields) > 2 and fields[0] != "Z" and int(fields[2]) in pgids:
            members.add(int(entry.name))
    return members


def _kill_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class Child:
    """One supervised process (and its process group)."""

    name: str
    argv: list[str]
    #: Variables this child gets on top of the supervisor's environment.
    env: dict[str, str] = field(default_factory=dict)
    #: File descriptors of the supervisor the child inherits (web's listening socket).
    pass_fds: tuple[int, ...] = ()
    proc: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    next_start: float = 0.0
    quick_deaths: int = 0
    restarts: int = field(default=0)
    #: Stopped after every other child (a service the others call, such as the local model
    #: that judges: a match still playing during the stop must not lose its judge first).
    stops_last: bool = False
    #: For a child the platform can run without (the local model): called when it keeps dying,
    #: it puts the platform in order without it and says how; the others then run on. A child
    #: without it that keeps dying ends ``make run``.
    on_give_up: Callable[[], str] | None = None
    given_up: bool = False


class Supervisor:
    """Starts the children, restarts the one that dies, stops them all."""

    def __init__(self, children: list[Child], *, env: dict[str, str], cwd: Path, say: Any) -> None:
        self.children = children
        self.env = env
        self.cwd = cwd
        self.say = say

    def start(self, child: Child) -> None:
        """Start ``child`` in a process group of its own (so it can be killed as a whole)."""
        child.proc = subprocess.Popen(
            child.argv,
            env={**self.env, **child.env},
            cwd=self.cwd,
            start_new_session=True,
            pass_fds=child.pass_fds,
            preexec_fn=_die_with_parent,  # noqa: PLW1509 - the supervisor runs no threads
        )
        child.started = time.monotonic()

    def check(self) -> None:
        """Start what is due; restart (after a back-off) what has died."""
        now = time.monotonic()
        for child in self.children:
            if child.given_up:
                continue
            if child.proc is None:
                if now >= child.next_start:
                    child.restarts += 1
                    self.start(child)
                    self.say(f"{child.name} restarted (restart {child.restarts})")
                continue
            code = child.proc.poll()
            if code is None:
                continue
            # Whatever the dead process left in its group (a worker's pool processes) goes with
            # it, so nothing keeps playing on its own; adopted, they are reaped here.
            _kill_group(child.proc.pid, signal.SIGKILL)
            _reap(besides={c.proc.pid for c in self.children if c.proc is not None})
            lived = now - child.started
            child.quick_deaths = child.quick_deaths + 1 if lived < HEALTHY_AFTER_S else 0
            if child.quick_deaths >= MAX_QUICK_DEATHS:
                child.proc = None
                if child.on_give_up is not None:
                    child.given_up = True
                    self.say(
                        f"{child.name} died {child.quick_deaths} times in a row within "
                        f"{HEALTHY_AFTER_S:.0f} s of starting (last exit: {code}; its output "
                        f"above says why) and is not started again: {child.on_give_up()}"
                    )
                    continue
                raise GaveUp(
                    f"{child.name} died {child.quick_deaths} times in a row within "
                    f"{HEALTHY_AFTER_S:.0f} s of starting (last exit: {code}); its output above "
                    "says why (for the web server, often a port in use: pick another with "
                    "--addr); fix that and run `make run` again"
                )
            delay = min(MAX_BACKOFF_S, 2.0**child.quick_deaths - 1)
            self.say(
                f"{child.name} exited ({code}) after {lived:.0f} s; restarting in {delay:.0f} s"
            )
            child.proc = None
            child.next_start = now + delay
            if child.name.endswith("worker"):
                _remove_containers(self.say)

    def stop(self, timeout_s: float) -> None:
        """SIGTERM each child's main process, wait, then kill every group that is left; then
        remove every agent container those processes made and queue their cut matches again.

        A second Ctrl-C while waiting kills at once. The children that stop last (the local
        model) are stopped once the others are gone.
        """
        serving = [c.proc for c in self.children if c.proc is not None and c.stops_last]
        running = [c.proc for c in self.children if c.proc is not None and not c.stops_last]
        groups = {p.pid for p in running}
        workers = {c.proc.pid for c in self.children if c.proc and c.name.endswith("worker")}
        # Every process of the run (the workers' pool processes made the containers), before
        # any of them exits.
        made_by = _group_members(groups) | groups
        for proc in running:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        try:
            while time.monotonic() < deadline and any(
                _group_alive(p.pid) for p in running if p.poll() is None
            ):
                time.sleep(0.2)
                _reap(besides=groups)
        except (KeyboardInterrupt, _Stop):
            self.say("killing what is left")
        for proc in running:
            _kill_group(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
        gone_by = time.monotonic() + REAP_WAIT_S
        while True:
            _reap()
            if not _group_members(groups) or time.monotonic() > gone_by:
                break
            time.sleep(0.1)
        made_by |= _group_members(groups)  # a pool process started while stopping
        removed = sandboxes_remove_of_processes(pids=made_by)
        if removed:
            self.say(f"removed {removed} agent containers of the stopped workers")
        _remove_containers(self.say)
        try:
            requeued = matches_requeue_interrupted(worker_pids=workers)
        except Exception as exc:  # the database or the broker is away: the next start does it
            self.say(
                f"the matches cut by the stop could not be queued again now ({exc}); the next "
                "start queues them again"
            )
        else:
            if requeued:
                self.say(f"{requeued} matches cut by the stop are queued again")
        for proc in serving:
            _kill_group(proc.pid, signal.SIGTERM)
        for proc in serving:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                _kill_group(proc.pid, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=10)


def listen(addr: str) -> socket.socket:
    """A TCP socket listening on ``addr`` (``host:port``), for web's masters to share.

    ``CommandError`` saying what to do when the address is in use or cannot be bound."""
    host, _, port = addr.rpartition(":")
    host = host.strip("[]") or "0.0.0.0"  # noqa: S104 - an empty host means every address
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, int(port), type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
    except (OSError, ValueError) as exc:
        raise CommandError(f"--addr {addr}: not an address to listen on ({exc})") from exc
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(WEB_BACKLOG)
    except OSError as exc:
        sock.close()
        raise CommandError(
            f"cannot listen on {addr} ({exc.strerror or exc}): another program (another "
            "`make run`?) uses it; stop it or pick another address with --addr"
        ) from exc
    return sock


def _remove_containers(say: Any) -> None:
    """Remove the agent containers of processes that are gone (label-selected, this host)."""
    removed = remove_orphaned_agents()
    if removed:
        say(f"removed {removed} agent containers left by stopped worker processes")


class Command(BaseCommand):
    """Run web, the worker pools and beat together, restarting whichever dies."""

    help = (
        "Start the whole platform (gunicorn, Celery workers and beat) on one machine; a child "
        "that dies is restarted; Ctrl-C stops everything."
    )

    def add_arguments(self, parser: Any) -> None:
        """``--addr``, ``--concurrency``, ``--web-workers`` and ``--stop-timeout``."""
        parser.add_argument("--addr", default="127.0.0.1:8000", help="where the web server listens")
        parser.add_argument(
            "--concurrency", type=int, default=None, help="worker processes (default: settings)"
        )
        parser.add_argument(
            "--web-workers",
            type=int,
            default=settings.ARENA_RUN_WEB_WORKERS,
            help="gunicorn worker processes (each with GUNICORN_THREADS threads)",
        )
        parser.add_argument(
            "--stop-timeout",
            type=float,
            default=15.0,
            help="seconds a child gets to finish its work after Ctrl-C before it is killed",
        )

    def _local_judge(self, env: dict[str, str]) -> list[Child]:
        """The judged games' judge on one machine: the operator's when named, else the local
        model where it is installed (served as a child, registered, named for every judged
        game), else none: the judged games then say "no judge" on their pages."""
        if settings.ARENA_JUDGE_MODEL or settings.ARENA_JUDGES:
            self.stdout.write("judged games: the judges named in ARENA_JUDGE_MODEL/ARENA_JUDGES")
            return []
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        argv = local_model_argv(port)
        if argv is None:
            self.stdout.write(
                "judged games (nil-recruitment, nuclear-war, passcode): no judge; "
                "`make llm-server` installs the local model, or set ARENA_JUDGE_MODEL"
            )
            return []
        self.local_model_url = f"http://127.0.0.1:{port}/v1"
        local_judge_register(base_url=self.local_model_url)
        env["ARENA_JUDGE_MODEL"] = LOCAL_MODEL_NAME
        self.stdout.write(f"judged games: judged by the local model ({LOCAL_MODEL_NAME})")
        return [Child("local model", argv, stops_last=True, on_give_up=local_judge_withdraw)]

    def _await_local_model(self, child: Child, say: Callable[[str], None]) -> None:
        """Wait until the local model answers ``GET /v1/models``: at most ``LOCAL_MODEL_WAIT_S``,
        and not once its process has ended (the supervisor restarts it)."""
        say("the local model is loading; the workers start once it answers")
        started = time.monotonic()
        url = f"{self.local_model_url}/models"
        while time.monotonic() - started < LOCAL_MODEL_WAIT_S:
            if child.proc is None or child.proc.poll() is not None:
                say("the local model ended while loading; the workers start without it")
                return
            try:
                with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - our own http URL
                    pass
            except OSError:
                time.sleep(0.5)
                continue
            say(f"the local model answers (after {time.monotonic() - started:.0f} s)")
            return
        say(
            f"the local model did not answer within {LOCAL_MODEL_WAIT_S:.0f} s; the workers "
            "start, and a judged match that finds no judge is played again later"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Prepare, start, supervise, stop."""
        root = Path(settings.ROOT_DIR)
        Path(settings.BROKER_DIR, "queue").mkdir(parents=True, exist_ok=True)
        Path(settings.BROKER_DIR, "processed").mkdir(parents=True, exist_ok=True)
        call_command("arena_setup")
        call_command("collectstatic", interactive=False, verbosity=0)
        env = child_env()
        backend = settings.ARENA_SANDBOX_BACKEND
        if backend == "auto":
            backend = detected_backend()
            env["ARENA_SANDBOX_BACKEND"] = backend
        if backend == "process":
            env["ARENA_ALLOW_PROCESS_SANDBOX"] = "1"
            self.stderr.write(
                self.style.WARNING("!" * 100 + "\n" + PROCESS_WARNING + "\n" + "!" * 100)
            )
        broker = (
            "Redis at REDIS_URL" if settings.REDIS_URL else f"filesystem ({settings.BROKER_DIR})"
        )
        self.stdout.write(
            f"sandbox: {backend}; broker: {broker}; database: "
            f"{settings.DATABASES['default']['NAME']}"
        )
        if os.geteuid() == 0:
            # Once here, instead of Celery's eight lines from each worker pool.
            self.stderr.write(
                self.style.WARNING(
                    "running as root: the Celery workers run as root too, which Celery advises "
                    "against; run `make run` as an ordinary user (one who may use Docker)"
                )
            )
            env["ARENA_ROOT_WARNED"] = "1"
        concurrency = {
            "worker": options["concurrency"],
            "interactive worker": settings.ARENA_INTERACTIVE_CONCURRENCY,
            "maintenance worker": settings.ARENA_MAINTENANCE_CONCURRENCY,
            "model worker": settings.ARENA_LLM_CONCURRENCY,
        }
        workers = [
            Child(
                name,
                worker_argv(
                    concurrency=concurrency[name], roles=roles, extra=POOL_EXTRA.get(name, ())
                ),
                env=dict(POOL_ENV.get(name, {})),
            )
            for name, roles in POOLS.items()
        ]
        beat = Child("beat", beat_argv(schedule=settings.CELERY_BEAT_SCHEDULE_FILENAME))
        # Bound here, once, so that a restarted web never refuses a connection (see above).
        listener = listen(options["addr"])
        web = Child(
            "web",
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-c",
                str(root / "deploy" / "gunicorn.conf.py"),
                "--bind",
                f"fd://{listener.fileno()}",
                "--workers",
                str(options["web_workers"]),
                "arena.wsgi:application",
            ],
            pass_fds=(listener.fileno(),),
        )

        def say(text: str) -> None:
            self.stderr.write(f"make run: {text}")

        extra = self._local_judge(env)
        supervisor = Supervisor([*workers, beat, web, *extra], env=env, cwd=root, say=say)
        _become_subreaper()
        # A run killed without a clean stop left matches running that nobody plays: hand them
        # back before the workers start.
        try:
            handed_back = matches_requeue_interrupted()
        except Exception as exc:  # the broker is away: the sweeper re-queues them later
            say(f"the matches a previous run left running are not queued again yet ({exc})")
        else:
            if handed_back:
                say(f"{handed_back} matches a previous run left running are queued again")
        # SIGINT too, explicitly: a shell that starts `make run &` hands it down ignored, and
        # `kill -INT` (or Ctrl-C after `fg`) must still stop everything.
        stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        previous = {s: signal.signal(s, _raise_stop) for s in stops}
        failure = ""
        try:
            # The site and the local model first; the workers once the model answers, so that
            # the first judged matches have their judge.
            for child in [web, *extra]:
                supervisor.start(child)
            if extra:
                self._await_local_model(extra[0], say)
            for child in supervisor.children:
                if child.proc is None:
                    supervisor.start(child)
            self.stdout.write(
                self.style.SUCCESS(
                    f"Agent Arena is up on http://{options['addr']}/ "
                    "(Ctrl-C stops web, workers and beat)"
                )
            )
            while True:
                supervisor.check()
                time.sleep(0.5)
        except (KeyboardInterrupt, _Stop):
            self.stdout.write("stopping…")
        except GaveUp as exc:
            failure = str(exc)
        finally:
            supervisor.stop(options["stop_timeout"])
            listener.close()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if failure:
            raise CommandError(failure)

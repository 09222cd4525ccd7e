"""The ``docker`` backend: one hardened container per agent per match (DESIGN.md §4).

The container runs the harness for the whole match; the controller talks to it over the attach
socket (stdin in, multiplexed stdout/stderr out). Every limit comes from ``SandboxLimits``:
no network, read-only root, a ``noexec,nosuid,nodev`` tmpfs at /tmp, uid 65534, no capabilities,
``no-new-privileges``, the seccomp profile of ``sandbox/seccomp.py``, memory without swap, one
CPU, a pids limit, nofile/fsize/core ulimits, an init process, private IPC, a capped log, an empty
environment and labels for cleanup. Between its turns the agent is frozen: its cgroup freezer
written directly when this process can reach it (``sandbox/freezer.py``, about 0.1 ms), else
``docker pause`` (about 10 ms, and seconds on a busy daemon). After a call the freeze is requested
at once but confirmed lazily, before this thread lets any other agent run (``confirm_freezes``),
so the kernel's freezing overlaps the referee's own work instead of lengthening every call.
Containers may come ready-started from the warm pool (``sandbox/pool.py``): same configuration,
the harness idle with no agent code.

Failures of the engine itself (gone, image missing) raise ``PlatformError`` and never count
against an agent.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import logging
import os
import queue
import signal
import socket
import struct
import threading
import time
from typing import Any

import docker
import docker.errors
import docker.types
import requests.exceptions

from games.core.errors import PlatformError
from sandbox import observe
from sandbox.channel import ChannelClosed, ChannelTimeout, HarnessHandle, platform_failure
from sandbox.freezer import CgroupFreezer, find_cgroup_freezer
from sandbox.limits import SandboxLimits
from sandbox.seccomp import profile_json

#: Every sandbox container carries this label; ``remove_orphans`` selects on it.
LABEL = "arena.sandbox"
#: Which worker (host name and pid) created the container.
OWNER_LABEL = "arena.sandbox.owner"
#: Unix time after which the container is an orphan whatever its owner says.
EXPIRES_LABEL = "arena.sandbox.expires"
#: ``1`` on containers started ahead of demand by the warm pool (``sandbox/pool.py``): idle ones
#: belong to their owner's pool until it drains them; once taken they serve one agent and go.
POOL_LABEL = "arena.sandbox.pool"

#: The command the image runs (DESIGN.md §4).
HARNESS_COMMAND = ["python3", "-I", "-u", "/opt/arena/harness.py"]

#: Tries at ``docker pause`` before an idle agent is left unfrozen for one wait.
FREEZE_ATTEMPTS = 5
#: How long the remover waits for a closed agent's harness to exit by itself (it sees the end of
#: its input) before the engine kills it.
EXIT_WAIT_S = 1.0

logger = logging.getLogger(__name__)

_ENGINE_ERRORS = (docker.errors.DockerException, requests.exceptions.RequestException, OSError)

_client: Any = None
_client_lock = threading.Lock()


class _Remover:
    """Removes finished agents' containers in the background, so a match's end (and the next
    match) never waits for the engine's ``rm -f`` (about 100 ms a container, more when busy).

    The agent is stopped before it is queued: its channel is closed, so its harness exits by
    itself (the container's stdin closes with the attach socket: ``StdinOnce``), which the
    remover waits for, up to ``EXIT_WAIT_S``: removing a container that exited costs the engine
    about 15 ms of CPU less than one it must kill. ``wait`` blocks until every queued container
    is gone (leak checks, shutdown).
    """

    THREADS = 2

    def __init__(self) -> None:
        self._queue: queue.Queue[tuple[str, bool]] = queue.Queue()
        self._lock = threading.Lock()
        self._started = False

    def submit(self, container_id: str, *, exits: bool = False) -> None:
        """Remove the container in the background; ``exits``: it is ending by itself."""
        with self._lock:
            if not self._started:
                self._started = True
                for number in range(self.THREADS):
                    threading.Thread(
                        target=self._run, name=f"arena-remover-{number}", daemon=True
                    ).start()
        self._queue.put((container_id, exits))

    def wait(self) -> None:
        with self._lock:
            if not self._started:
                return
        self._queue.join()

    def _run(self) -> None:
        while True:
            container_id, exits = self._queue.get()
            try:
                if exits:
                    _wait_for_exit(container_id)
                _remove_container(container_id)
            finally:
                self._queue.task_done()


def _wait_for_exit(container_id: str) -> None:
    try:
        docker_client().api.wait(container_id, timeout=EXIT_WAIT_S)
    except (PlatformError, *_ENGINE_ERRORS):
        pass  # still running (or the engine is busy): the removal kills it


#: Pauses before each new attempt at a removal the engine refused (``_remove_container``).
REMOVE_RETRY_PAUSES_S = (0.2, 0.5, 1.0, 2.0)


def _remove_container(container_id: str) -> None:
    """Remove the container, killing it if it runs; retry what the engine refuses for a moment.

    ``remove(force=True)`` of a container that exits by itself at that moment fails with 409
    "Could not kill running container ..., cannot remove - Container ... is not running": the
    engine saw it running, then could not kill it. A busy host widens that window (a harness that
    takes over ``EXIT_WAIT_S`` to end); the next attempt finds it exited and removes it.
    """
    for attempt, pause in enumerate((*REMOVE_RETRY_PAUSES_S, None)):
        try:
            docker_client().api.remove_container(container_id, force=True)
            return
        except docker.errors.NotFound:
            return
        except (PlatformError, *_ENGINE_ERRORS) as exc:
            # Only an answer of the engine is worth another try; no engine (or no answer) is not.
            if pause is None or not isinstance(exc, docker.errors.APIError):
                # Left for remove_orphans; never lose a match result over cleaning.
                tries = attempt + 1
                logger.warning("could not remove %s (%d tries): %s", container_id, tries, exc)
                return
            logger.info("removing container %s failed, trying again: %s", container_id, exc)
            time.sleep(pause)


_remover = _Remover()

#: A container bound to a match is renamed ``arena-match-<match>-<container id[:12]>`` (a label
#: cannot be added once a warm-pool container exists), so the platform's reaper can remove the
#: containers of matches that are over even while their worker process lives on.
MATCH_NAME_PREFIX = "arena-match-"
_namer_lock = threading.Lock()
_namer: concurrent.futures.ThreadPoolExecutor | None = None


def _name_for_match(container_id: str, match: str) -> None:
    """Rename the container after its match, in the background: a load never waits for it."""
    global _namer
    with _namer_lock:
        if _namer is None:
            _namer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="arena-namer")
        _namer.submit(_rename, container_id, f"{MATCH_NAME_PREFIX}{match}-{container_id[:12]}")


def _rename(container_id: str, name: str) -> None:
    try:
        docker_client().api.rename(container_id, name)
    except (PlatformError, *_ENGINE_ERRORS) as exc:  # gone already, or the engine is busy
        logger.debug("could not name container %s %s: %s", container_id, name, exc)


def match_containers() -> dict[str, str]:
    """Every sandbox container bound to a match, on this engine: {container id: match} (empty
    when no engine answers)."""
    try:
        listed = docker_client().api.containers(all=True, filters={"label": f"{LABEL}=1"})
    except (PlatformError, *_ENGINE_ERRORS):
        return {}
    found: dict[str, str] = {}
    for info in listed:
        for name in info.get("Names") or ():
            bare = name.lstrip("/")
            if bare.startswith(MATCH_NAME_PREFIX):  # arena-match-<match>-<container id[:12]>
                match = bare.removeprefix(MATCH_NAME_PREFIX).rpartition("-")[0]
                if match:
                    found[info["Id"]] = match
    return found


def remove_containers(container_ids: list[str]) -> int:
    """Remove these containers now (kill first if they run); return how many were asked."""
    for container_id in container_ids:
        _remove_container(container_id)
    return len(container_ids)


def wait_for_removals() -> None:
    """Block until every container this process queued for removal is gone."""
    _remover.wait()


atexit.register(wait_for_removals)


#: Per thread, the agents whose freeze was requested after a call and not yet confirmed by the
#: kernel (``DockerAgentHandle._freeze_later``). The referee plays a match in one thread and
#: thaws every agent of that match there, so checking this list before each thaw guarantees that
#: no waiting agent runs while another agent's call does.
_unconfirmed = threading.local()


def _awaiting_confirmation() -> list[DockerAgentHandle]:
    handles: list[DockerAgentHandle] | None = getattr(_unconfirmed, "handles", None)
    if handles is None:
        handles = _unconfirmed.handles = []
    return handles


def confirm_freezes(*, besides: DockerAgentHandle | None = None) -> None:
    """Wait until the kernel confirms every freeze this thread requested after a call.

    ``besides`` (an agent about to be thawed or closed) is taken off the list unconfirmed.
    Called before any agent is thawed and when one is closed; a freeze not confirmed within
    ``FREEZE_CONFIRM_S`` is counted and logged, as a synchronous one is.
    """
    handles = _awaiting_confirmation()
    while handles:
        handle = handles.pop()
        if handle is not besides:
            handle._confirm_freeze()


def _forget_client_in_child() -> None:
    # A forked worker process must not share the parent's connections to the engine, nor
    # believe the parent's removal threads (or freezes awaiting confirmation) are its own.
    global _client, _client_lock, _remover, _unconfirmed, _namer, _namer_lock
    _client = None
    _client_lock = threading.Lock()
    _remover = _Remover()
    _unconfirmed = threading.local()
    _namer = None
    _namer_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_client_in_child)


def docker_client() -> Any:
    """The process-wide Docker client (created on first use); ``PlatformError`` without one."""
    global _client
    with _client_lock:
        if _client is None:
            try:
                _client = docker.from_env(timeout=60)
            except _ENGINE_ERRORS as exc:
                raise PlatformError(
                    f"no Docker engine answers ({exc}); start Docker, or play with "
                    "`--sandbox process` (not isolated)"
                ) from exc
        return _client


def docker_ready(image: str) -> bool:
    """True when an engine answers and ``image`` exists on it."""
    try:
        client = docker_client()
        client.api.ping()
        client.api.inspect_image(image)
    except (PlatformError, *_ENGINE_ERRORS):
        return False
    return True


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def container_config(limits: SandboxLimits, labels: dict[str, str]) -> dict[str, Any]:
    """Keyword arguments of ``APIClient.create_container``: every limit, in one place."""
    client = docker_client()
    mib = 1024 * 1024
    host_config = client.api.create_host_config(
        network_mode="none",
        read_only=True,
        tmpfs={"/tmp": f"rw,noexec,nosuid,nodev,size={limits.tmpfs_size_mb}m,mode=1777"},  # noqa: S108 - the container's own tmpfs
        cap_drop=["ALL"],
        security_opt=["no-new-privileges:true", f"seccomp={profile_json()}"],
        mem_limit=limits.mem_limit_mb * mib,
        memswap_limit=limits.mem_limit_mb * mib,
        mem_swappiness=0,
        nano_cpus=int(limits.cpus * 1e9),
        pids_limit=limits.pids_limit,
        ulimits=[
            docker.types.Ulimit(name="nofile", soft=limits.nofile_limit, hard=limits.nofile_limit),
            docker.types.Ulimit(
                name="fsize", soft=limits.fsize_limit_mb * mib, hard=limits.fsize_limit_mb * mib
            ),
            docker.types.Ulimit(name="core", soft=0, hard=0),
        ],
        init=True,
        ipc_mode="private",
        shm_size=limits.shm_size_mb * mib,
        log_config=docker.types.LogConfig(
            type="json-file", config={"max-size": f"{limits.log_max_size_kb}k", "max-file": "1"}
        ),
        # When the host runs short of memory, the kernel should pick an agent, not the worker.
        oom_score_adj=1000,
        runtime=limits.runtime,
    )
    return {
        "image": limits.image,
        "command": HARNESS_COMMAND,
        "user": limits.user,
        "working_dir": "/tmp",  # noqa: S108 - the container's own tmpfs
        "environment": [],
        "stdin_open": True,
        "tty": False,
        "network_disabled": True,
        "labels": labels,
        "host_config": host_config,
    }


class DockerAgentHandle(HarnessHandle):
    """One agent in one hardened container for one match."""

    backend = "docker"

    def __init__(self, source: str, *, name: str, limits: SandboxLimits | None = None) -> None:
        super().__init__(source, name=name, limits=limits)
        self._container_id: str | None = None
        #: The match this agent plays, when the caller says (the container is named after it).
        self.match: str | None = None
        self._response: Any = None
        self._socket: socket.socket | None = None
        self._frames = bytearray()
        self._stderr = bytearray()
        self._frozen = False
        self._killed = False
        self._freezer: CgroupFreezer | None = None
        #: When the container was started (time.time()); the warm pool retires old ones.
        self.started_at = 0.0
        #: How many times the idle agent could not be frozen (it then waited unfrozen, or the
        #: kernel did not confirm every task frozen in time).
        self.freeze_failures = 0

    @property
    def container_id(self) -> str | None:
        """The container's id once started (for logs and tests)."""
        return self._container_id

    # --- launching ----------------------------------------------------------------------------

    def _launch(self) -> None:
        if self._container_id is None:  # else a warm-pool container, its idle harness running
            self.launch_container()
        if self.match is not None and self._container_id is not None:
            _name_for_match(self._container_id, self.match)

    def launch_container(self, *, pool: bool = False) -> None:
        """Create, attach and start the container, and find its freezer (no agent code yet)."""
        client = docker_client()
        labels = {
            LABEL: "1",
            OWNER_LABEL: _owner(),
            EXPIRES_LABEL: str(int(time.time()) + self.limits.max_lifetime_s),
        }
        if pool:
            labels[POOL_LABEL] = "1"
        launch_began = time.perf_counter()
        try:
            created = client.api.create_container(**container_config(self.limits, labels))
        except docker.errors.ImageNotFound as exc:
            raise PlatformError(
                f"the sandbox image {self.limits.image} is missing: run `make image`"
            ) from exc
        except _ENGINE_ERRORS as exc:
            raise platform_failure("create the agent's container", exc) from exc
        self._container_id = created["Id"]
        try:
            # Attach before start so not a byte of output is missed.
            raw = client.api.attach_socket(
                self._container_id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
            )
            self._response = raw
            self._socket = raw._sock if hasattr(raw, "_sock") else raw
            client.api.start(self._container_id)
            self.started_at = time.time()
            observe.container_started(time.perf_counter() - launch_began, pool=pool)
            self._find_freezer()
        except _ENGINE_ERRORS as exc:
            self._release()
            raise platform_failure("start the agent's container", exc) from exc

    def prepare(self, timeout_s: float) -> None:
        """For the warm pool: start the container and wait until its harness answers a ping."""
        self.launch_container(pool=True)
        try:
            self._ping(timeout_s)
        except BaseException:
            self._release()
            raise

    def adopt(self, source: str, *, name: str, limits: SandboxLimits) -> None:
        """Give a prepared pool container its one agent (before ``start``)."""
        self.source = source
        self._name = name
        self.limits = limits
        self.freeze_method = self._method() if limits.freeze_idle else None

    def is_alive(self) -> bool:
        """True while the idle harness's channel is open (a cheap check, no daemon call)."""
        sock = self._socket
        if sock is None or self._container_id is None:
            return False
        try:
            sock.setblocking(False)
            try:
                data = sock.recv(1, socket.MSG_PEEK)
            finally:
                sock.setblocking(True)
        except BlockingIOError:
            return True  # nothing to read: open and quiet, as an idle harness is
        except OSError:
            return False
        # An idle harness says nothing: bytes (or the end of the stream, b"") mean it is not idle.
        del data
        return False

    def _find_freezer(self) -> None:
        if self.limits.freeze_method != "auto" or self._container_id is None:
            self.freeze_method = self._method()
            return
        # Docker's two usual layouts first; the container's own pid and cgroup parent (one more
        # call to the engine) only when neither is there.
        root = self.limits.cgroup_root
        self._freezer = find_cgroup_freezer(self._container_id, pid=None, root=root)
        if self._freezer is None:
            try:
                info = docker_client().api.inspect_container(self._container_id)
            except _ENGINE_ERRORS:
                info = {}
            self._freezer = find_cgroup_freezer(
                self._container_id,
                pid=(info.get("State") or {}).get("Pid"),
                cgroup_parent=(info.get("HostConfig") or {}).get("CgroupParent") or "",
                root=root,
            )
        self.freeze_method = self._method()

    def _method(self) -> str | None:
        if not self.limits.freeze_idle:
            return None
        return self._freezer.method if self._freezer is not None else "pause"

    # --- the channel --------------------------------------------------------------------------

    def _send(self, data: bytes, deadline: float) -> None:
        if self._socket is None:
            raise ChannelClosed()
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            raise ChannelTimeout()
        self._socket.settimeout(remaining)
        try:
            self._socket.sendall(data)
        except TimeoutError:
            raise ChannelTimeout() from None
        except OSError:
            raise ChannelClosed() from None

    def _receive(self, deadline: float) -> bytes:
        """Demultiplex the attach stream: 8-byte headers (stream, size), stdout frames kept."""
        while True:
            payload = self._next_stdout_frame()
            if payload is not None:
                return payload
            chunk = self._read_socket(deadline)
            if not chunk:
                return b""
            self._frames += chunk

    def _next_stdout_frame(self) -> bytes | None:
        while len(self._frames) >= 8:
            stream, size = struct.unpack(">BxxxL", self._frames[:8])
            if len(self._frames) < 8 + size:
                # A partial frame: hand over what there is of a stdout frame so a reply larger
                # than the cap is noticed before it is all buffered.
                if stream == 1 and len(self._frames) > 8:
                    part = bytes(self._frames[8:])
                    self._frames = bytearray(self._frames[:8])
                    self._frames[4:8] = struct.pack(">L", size - len(part))
                    return part
                return None
            payload = bytes(self._frames[8 : 8 + size])
            del self._frames[: 8 + size]
            if stream == 1:
                return payload
            if len(self._stderr) < 16 * 1024:
                self._stderr += payload[: 16 * 1024]
        return None

    def _read_socket(self, deadline: float) -> bytes:
        sock = self._socket
        if sock is None:
            return b""
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            raise ChannelTimeout()
        sock.settimeout(remaining)
        try:
            return sock.recv(1 << 16)
        except TimeoutError:
            raise ChannelTimeout() from None
        except OSError:
            return b""

    # --- freezing, killing, cleaning ----------------------------------------------------------

    def _freeze(self) -> None:
        if not self.limits.freeze_idle or self._frozen or self._container_id is None:
            return
        if self._freezer is not None:
            self._frozen = True
            if not self._freezer.request_freeze():
                self._not_frozen()
            else:
                self._confirm_freeze()
            return
        api = docker_client().api
        for attempt in range(FREEZE_ATTEMPTS):
            try:
                api.pause(self._container_id)
            except docker.errors.APIError as exc:
                # runc gives up ("unable to freeze") when the container's tasks cannot reach the
                # freezer in time: a CPU-starved host or a process storm; and a failed attempt
                # can still leave the container paused. Believe the container's state, try
                # again, and if it keeps failing let this one wait unfrozen rather than charge
                # anyone for it.
                if "freeze" not in str(exc) and "paused" not in str(exc):
                    raise platform_failure("freeze the idle agent", exc) from exc
                if self._is_paused():
                    self._frozen = True
                    return
                time.sleep(0.02 * (attempt + 1))
            except _ENGINE_ERRORS as exc:
                raise platform_failure("freeze the idle agent", exc) from exc
            else:
                self._frozen = True
                return
        self.freeze_failures += 1
        logger.warning("could not freeze container %s; it waits unfrozen", self._container_id)

    def _freeze_later(self) -> None:
        # The agent has answered; from here on only the referee's own work runs until the next
        # call, which confirms this freeze before it thaws anyone (``confirm_freezes``). The
        # kernel stops the tasks within microseconds meanwhile, on the referee's time, not the
        # next agent's. ``docker pause`` confirms by itself: nothing to defer there.
        if self._freezer is None or self._frozen or not self.limits.freeze_idle:
            self._freeze()
            return
        self._frozen = True
        if self._freezer.request_freeze():
            _awaiting_confirmation().append(self)
        else:
            self._not_frozen()

    def _confirm_freeze(self) -> None:
        if self._freezer is not None and not self._freezer.confirm_frozen():
            self._not_frozen()

    def _not_frozen(self) -> None:
        # Still frozen as far as the kernel could (the request stands); counted so the log and
        # the bench can tell.
        self.freeze_failures += 1
        logger.warning("container %s was not confirmed frozen", self._container_id)

    def _forget_freeze_request(self) -> None:
        handles = _awaiting_confirmation()
        if self in handles:
            handles.remove(self)

    def _thaw(self) -> None:
        # Every other agent this thread froze must be frozen before this one runs.
        confirm_freezes(besides=self)
        if self._container_id is None or not (self._frozen or self.freeze_failures):
            return
        if self._freezer is not None:
            try:
                self._freezer.thaw()
            except OSError as exc:
                raise platform_failure("unfreeze the agent (cgroup freezer)", exc) from exc
            self._frozen = False
            return
        try:
            docker_client().api.unpause(self._container_id)
        except docker.errors.APIError as exc:
            # "is not paused": already running, which is all we want (a failed freeze).
            if "not paused" not in str(exc):
                raise platform_failure("unfreeze the agent", exc) from exc
        except _ENGINE_ERRORS as exc:
            raise platform_failure("unfreeze the agent", exc) from exc
        self._frozen = False

    def _is_paused(self) -> bool:
        try:
            state = docker_client().api.inspect_container(self._container_id)["State"]
        except _ENGINE_ERRORS as exc:
            raise platform_failure("read the agent's container state", exc) from exc
        return bool(state.get("Paused"))

    def _close_socket(self) -> None:
        # Closed before any kill: a container flooding a socket nobody reads can hang the kill.
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                self._socket.close()
            self._socket = None
        if self._response is not None:
            with contextlib.suppress(Exception):
                self._response.close()
            self._response = None

    def _kill(self) -> None:
        self._forget_freeze_request()  # a killed agent's cgroup may vanish before a confirmation
        self._close_socket()
        if self._container_id is None:
            return
        self._killed = True
        with contextlib.suppress(*_ENGINE_ERRORS):
            docker_client().api.kill(self._container_id)

    def _exit_description(self) -> str:
        if self._container_id is None:
            return "its container never started"
        api = docker_client().api
        try:
            result = api.wait(self._container_id, timeout=5)
            state = api.inspect_container(self._container_id)["State"]
        except requests.exceptions.ConnectionError as exc:
            raise platform_failure("inspect the agent's container", exc) from exc
        except _ENGINE_ERRORS:
            return "its container ended (its state could not be read)"
        code = int(state.get("ExitCode", result.get("StatusCode", -1)))
        if state.get("OOMKilled"):
            how = f"it ran out of memory (the limit is {self.limits.mem_limit_mb} MB)"
        elif code > 128:
            try:
                name = signal.Signals(code - 128).name
            except ValueError:
                name = f"signal {code - 128}"
            how = f"it was killed by {name}"
        else:
            how = f"it exited with code {code}"
        tail = self._stderr.decode("utf-8", errors="replace").strip()[-2000:]
        return how + (f"; it wrote: {tail}" if tail else "")

    def _release(self) -> None:
        confirm_freezes(besides=self)
        self._close_socket()
        # The channel is closed: the harness reads the end of its input and exits, ending the
        # container, as soon as it may run. Its match is over (``close`` comes after the last
        # call), so a frozen agent is thawed for that moment; it can no longer talk to anyone.
        # Behind ``docker pause`` it stays paused and the engine kills it.
        exits = not self._killed
        if self._freezer is not None:
            if self._frozen:
                try:
                    self._freezer.thaw()
                except OSError:
                    exits = False
            self._freezer.close()
            self._freezer = None
        elif self._frozen:
            exits = False
        if self._container_id is None:
            return
        # The container goes in the background (``wait_for_removals`` waits for it).
        _remover.submit(self._container_id, exits=exits)
        self._container_id = None
        self._frozen = False


def own_containers() -> list[dict[str, Any]]:
    """The sandbox containers this process created and has not removed (for leak checks).

    Waits for the background removals first. Idle containers of this process's warm pool are not
    counted (the pool removes them itself), nor one it is starting at that moment.
    """
    from sandbox import pool

    wait_for_removals()
    api = docker_client().api
    filters = {"label": [f"{LABEL}=1", f"{OWNER_LABEL}={_owner()}"]}
    warm = pool.current()
    idle = warm.idle_ids if warm is not None else set()
    return [c for c in api.containers(all=True, filters=filters) if c["Id"] not in idle]


def remove_orphan_containers(*, everything: bool = False) -> int:
    """Remove labelled containers that no live match of a worker uses; return how many.

    An orphan is a container stopped for over a minute, one past its expiry label, or one created
    by a process of this host that no longer runs. ``everything`` removes every labelled container
    (for tests and ``make clean``-style sweeps when no worker runs).
    """
    try:
        client = docker_client()
        containers = client.api.containers(all=True, filters={"label": LABEL})
    except (PlatformError, *_ENGINE_ERRORS):
        return 0
    host = socket.gethostname()
    now = time.time()
    removed = 0
    for info in containers:
        labels = info.get("Labels") or {}
        owner_host, _, owner_pid = str(labels.get(OWNER_LABEL, "")).partition(":")
        try:
            expired = float(labels.get(EXPIRES_LABEL, "0")) < now
        except ValueError:
            expired = True
        owner_gone = False
        if owner_host == host and owner_pid.isdigit():
            try:
                os.kill(int(owner_pid), 0)
            except ProcessLookupError:
                owner_gone = True
            except PermissionError:
                pass
        # A container another worker has only just created or that just exited is not an orphan.
        stale = info.get("State") not in ("running", "paused") and now - info.get("Created", 0) > 60
        if everything or expired or owner_gone or stale:
            with contextlib.suppress(*_ENGINE_ERRORS):
                client.api.remove_container(info["Id"], force=True)
                removed += 1
    return removed

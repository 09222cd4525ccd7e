"""The ``docker`` backend's agent handle: one hardened container per agent per match.

The container (configured by ``sandbox/container_config.py``) runs the harness for the whole
match; the controller talks to it over the attach socket (stdin in, multiplexed stdout/stderr
out). Between its turns the agent is frozen: its cgroup freezer written directly when this process
can reach it (``sandbox/freezer.py``, about 0.1 ms), else ``docker pause`` (about 10 ms, and
seconds on a busy daemon). After a call the freeze is requested at once but confirmed lazily,
before this thread lets any other agent run (``confirm_freezes``), so the kernel's freezing
overlaps the referee's own work instead of lengthening every call. Containers may come
ready-started from the warm pool (``sandbox/pool.py``): same configuration, the harness idle with
no agent code. A closed agent's container is removed in the background (``sandbox/engine.py``).

Failures of the engine itself (gone, image missing) raise ``PlatformError`` and never count
against an agent.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import struct
import threading
import time
from typing import Any, Protocol

import docker.errors
import requests.exceptions

from games.core.errors import PlatformError
from sandbox import engine, host_wait, observe
from sandbox.channel import ChannelClosed, ChannelTimeout, HarnessHandle, platform_failure
from sandbox.container_config import (
    container_config,
    container_labels,
    container_name,
    match_container_name,
    reuse_container_name,
)
from sandbox.engine import ENGINE_ERRORS
from sandbox.freezer import CgroupFreezer, find_cgroup_freezer
from sandbox.instance import PROCESS_INSTANCE, checked_instance
from sandbox.limits import SandboxLimits
from sandbox.socket_channel import ChannelListener

#: Tries at ``docker pause`` before an idle agent is left unfrozen for one wait.
FREEZE_ATTEMPTS = 5
#: How long a supervised container's supervisor has to acknowledge a ``spawn`` (it answers
#: before the agent's Python starts: milliseconds, unless the host is starved).
SPAWN_TIMEOUT_S = 10.0
#: How long it has, after a match's last call, to end the agent process, sweep the container and
#: report (about 2 ms; a report later than this discards the container).
RESET_TIMEOUT_S = 5.0

logger = logging.getLogger(__name__)


class ReuseHome(Protocol):
    """What keeps a container whose match ended cleanly (``sandbox.reuse.ReuseCache``)."""

    def give_back(self, handle: DockerAgentHandle) -> bool:
        """Keep the container for the submission's next match; False if it cannot."""


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


class DockerAgentHandle(HarnessHandle):
    """One agent in one hardened container for one match."""

    backend = "docker"

    def __init__(
        self,
        source: str,
        *,
        name: str,
        limits: SandboxLimits | None = None,
        instance: str = PROCESS_INSTANCE,
    ) -> None:
        super().__init__(source, name=name, limits=limits)
        #: The platform instance the container belongs to (its label and name carry it).
        self.instance = checked_instance(instance)
        self._container_id: str | None = None
        #: The match this agent plays, when the caller says (the container is named after it).
        self.match: str | None = None
        self._response: Any = None
        self._socket: socket.socket | None = None
        #: The socket channel's listener until the supervisor connects (``socket_channel.py``).
        self._listener: ChannelListener | None = None
        #: True when ``_socket`` is the socket channel (plain bytes), not the attach stream
        #: (frames with 8-byte headers).
        self._plain = False
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
        #: The submission whose later matches may reuse this container (``sandbox/reuse.py``);
        #: ``None``: one match, then it goes.
        self.reuse_key: str | None = None
        #: Matches this container finished cleanly before this one (a supervised container).
        self.matches_served = 0
        #: The supervisor's token (``harness.Supervisor``), learnt at the first spawn.
        self._token: str | None = None
        self._spawn_id = -1
        self._reuse_named = False
        #: True when the container came from the reuse cache (it served earlier matches).
        self.reused = False
        #: Where a clean container goes after the match: the reuse cache (``sandbox/reuse.py``)
        #: that ``create_handle`` names; ``None``: nowhere, it is removed.
        self.reuse_home: ReuseHome | None = None
        #: The supervisor's report when the agent process ended during a call.
        self._agent_exit: dict[str, Any] | None = None

    @property
    def container_id(self) -> str | None:
        """The container's id once started (for logs and tests)."""
        return self._container_id

    # --- launching ----------------------------------------------------------------------------

    def _launch(self) -> None:
        if self._container_id is None:  # else a warm-pool or reused container, its idle
            self.launch_container()  # harness or supervisor running
        if self.limits.supervised:
            try:
                self._spawn_agent()
            except PlatformError as exc:
                if not self.reused:
                    raise
                # What an earlier match of this submission left broke the supervisor: that
                # match's doing, never this one's; play this match in a new container.
                logger.warning("a reused container could not start an agent (%s); a new one", exc)
                self._discard_container()
                self.reused = False
                self.launch_container()
                self._spawn_agent()
        self._name_container()

    def _name_container(self) -> None:
        if self._container_id is None:
            return
        # A label cannot be added once a warm-pool container exists: the name says it.
        if self.reuse_key is not None:
            if not self._reuse_named:
                self._reuse_named = True
                name = reuse_container_name(instance=self.instance, container_id=self._container_id)
                engine.current().rename_later(self._container_id, name)
        elif self.match is not None:
            name = match_container_name(
                instance=self.instance, match=self.match, container_id=self._container_id
            )
            engine.current().rename_later(self._container_id, name)

    def _spawn_agent(self) -> None:
        """Ask the supervisor for this match's agent process; check the token it answers with
        (its first answer, before any agent ran in the container, is the one to believe)."""
        self._spawn_id = self._next_id
        result = self._supervisor_request("spawn", SPAWN_TIMEOUT_S)
        token = result.get("token")
        if not isinstance(token, str) or (self._token is not None and token != self._token):
            raise PlatformError("the sandbox's supervisor answered a spawn with another token")
        self._token = token

    def launch_container(self, *, pool: bool = False) -> None:
        """Create, attach and start the container, and find its freezer (no agent code yet)."""
        client = engine.current().client()
        labels = container_labels(instance=self.instance, limits=self.limits, pool=pool)
        name = container_name(instance=self.instance, pool=pool)
        launch_began = time.perf_counter()
        channel_dir = None
        self._plain = self.limits.socket_channel
        if self._plain:
            self._listener = ChannelListener(self.limits.channel_dir, self.limits.user)
            channel_dir = self._listener.directory
        try:
            created = client.api.create_container(
                **container_config(client.api, self.limits, labels, channel_dir), name=name
            )
        except docker.errors.ImageNotFound as exc:
            self._close_socket()
            raise PlatformError(
                f"the sandbox image {self.limits.image} is missing: run `make image`"
            ) from exc
        except ENGINE_ERRORS as exc:
            self._close_socket()
            raise platform_failure("create the agent's container", exc) from exc
        self._container_id = created["Id"]
        try:
            if self._listener is None:
                # Attach before start so not a byte of output is missed.
                raw = client.api.attach_socket(
                    self._container_id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
                )
                self._response = raw
                self._socket = raw._sock if hasattr(raw, "_sock") else raw
            # Else the supervisor connects once it runs; the first exchange accepts it.
            client.api.start(self._container_id)
            self.started_at = time.time()
            observe.container_started(time.perf_counter() - launch_began, pool=pool)
            self._find_freezer()
        except ENGINE_ERRORS as exc:
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

    def answers_ping(self, timeout_s: float) -> bool:
        """True when the idle harness answers a ping within ``timeout_s`` (about 0.3 ms): the
        warm pool's check before it hands a container to an agent."""
        try:
            self._ping(timeout_s)
        except PlatformError:
            return False
        return True

    def adopt(self, source: str, *, name: str, limits: SandboxLimits) -> None:
        """Give a prepared pool container its one agent (before ``start``)."""
        self.source = source
        self._name = name
        self.limits = limits
        self.freeze_method = self._method() if limits.freeze_idle else None

    def is_alive(self) -> bool:
        """True while the idle harness's channel is open (a cheap check, no daemon call)."""
        if self._listener is not None:
            return False  # never pinged: its supervisor has not even connected
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
                info = engine.current().client().api.inspect_container(self._container_id)
            except ENGINE_ERRORS:
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

    def _agent_threads(self) -> list[int]:
        # Every thread of the container's cgroup (the supervisor's, idle, waits on no run queue).
        if self._freezer is None:
            return []
        return host_wait.cgroup_threads(self._freezer.directory, self._freezer.version)

    def _connected(self, deadline: float) -> socket.socket | None:
        """The channel's socket; the socket channel's first use accepts the supervisor."""
        if self._socket is None and self._listener is not None:
            listener, self._listener = self._listener, None
            try:
                self._socket = listener.accept(deadline)
            except TimeoutError:
                raise ChannelTimeout() from None
            except OSError:
                raise ChannelClosed() from None
        return self._socket

    def _send(self, data: bytes, deadline: float) -> None:
        if self._connected(deadline) is None or self._socket is None:
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
        """The socket channel's next bytes; or the attach stream's, demultiplexed (8-byte
        headers: stream, size), its stdout frames kept."""
        if self._plain:
            return self._read_socket(deadline)
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
        sock = self._connected(deadline)
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
        api = engine.current().client().api
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
            except ENGINE_ERRORS as exc:
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
            engine.current().client().api.unpause(self._container_id)
        except docker.errors.APIError as exc:
            # "is not paused": already running, which is all we want (a failed freeze).
            if "not paused" not in str(exc):
                raise platform_failure("unfreeze the agent", exc) from exc
        except ENGINE_ERRORS as exc:
            raise platform_failure("unfreeze the agent", exc) from exc
        self._frozen = False

    def _is_paused(self) -> bool:
        try:
            state = engine.current().client().api.inspect_container(self._container_id)["State"]
        except ENGINE_ERRORS as exc:
            raise platform_failure("read the agent's container state", exc) from exc
        return bool(state.get("Paused"))

    def _close_socket(self) -> None:
        # Closed before any kill: a container flooding a socket nobody reads can hang the kill.
        if self._listener is not None:
            self._listener.close()
            self._listener = None
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
        with contextlib.suppress(*ENGINE_ERRORS):
            engine.current().client().api.kill(self._container_id)

    def _agent_process_ended(self, line: bytes) -> bool:
        # Only a line that starts as the supervisor writes its report is parsed: a reply never
        # does (its id is that of the call), so the calls' own path stays one prefix test.
        if self._token is None or not line.startswith(
            b'{"id": %d, "type": "reset"' % self._spawn_id
        ):
            return False
        try:
            report = json.loads(line)
        except ValueError:
            return False
        if not isinstance(report, dict) or report.get("token") != self._token:
            return False  # an agent's forgery: the reply check refuses it as what it is
        self._agent_exit = report
        return True

    def _exit_description(self) -> str:
        if self._agent_exit is not None:
            return _agent_exit_description(self._agent_exit, self.limits, self._stderr)
        if self._container_id is None:
            return "its container never started"
        api = engine.current().client().api
        try:
            result = api.wait(self._container_id, timeout=5)
            state = api.inspect_container(self._container_id)["State"]
        except requests.exceptions.ConnectionError as exc:
            raise platform_failure("inspect the agent's container", exc) from exc
        except ENGINE_ERRORS:
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
        if self._plain:  # no attach stream: what it wrote is in the container's log
            with contextlib.suppress(*ENGINE_ERRORS):
                self._stderr += api.logs(self._container_id, stdout=False, stderr=True, tail=40)
        tail = self._stderr.decode("utf-8", errors="replace").strip()[-2000:]
        return how + (f"; it wrote: {tail}" if tail else "")

    def close(self) -> None:
        """End the match: hand a supervised container that ended it cleanly to the reuse cache
        (``sandbox/reuse.py``), else kill and remove the container; safe to call twice."""
        if self._closed:
            return
        reusable = self._reusable()
        self._closed = True
        self._dead = True
        confirm_freezes(besides=self)
        home = self.reuse_home
        if reusable and home is not None and self._end_match() and home.give_back(self):
            return
        self._release()

    def _reusable(self) -> bool:
        """Whether this match left the container fit for the same submission's next one: it
        ended without a crash, timeout, protocol breach, kill or freeze failure, and the
        container is below its match and age limits."""
        return (
            self.limits.supervised
            and self.reuse_key is not None
            and self._started
            and not self._dead
            and not self._killed
            and self.freeze_failures == 0
            and self._container_id is not None
            and self._socket is not None
            and not self._buffer
            and self.matches_served + 1 < self.limits.reuse_max_matches
            and time.time() - self.started_at < self.limits.reuse_max_age_s
        )

    def _end_match(self) -> bool:
        """Stop the agent process (``exit``) and read the supervisor's sweep report; True when
        the container is clean for another match of this submission."""
        try:
            self._thaw()
            self._send(b'{"id": %d, "type": "exit"}\n' % self._next_id, time.perf_counter() + 1)
        except (PlatformError, ChannelTimeout, ChannelClosed):
            return False
        self._next_id += 1
        report = self._read_reset_report(self._spawn_id, RESET_TIMEOUT_S)
        if report is None or report.get("token") != self._token or report.get("ok") is not True:
            problems = None if report is None else report.get("problems")
            logger.info("container %s not reused: %s", self._container_id, problems or "no report")
            return False
        self.matches_served += 1
        return report.get("matches") == self.matches_served

    def take_container(self, other: DockerAgentHandle) -> None:
        """Take over ``other``'s idle supervised container (the reuse cache, before ``start``):
        its channel, freezer and supervisor token; ``other`` no longer holds anything."""
        self._container_id, other._container_id = other._container_id, None
        self._response, other._response = other._response, None
        self._socket, other._socket = other._socket, None
        self._listener, other._listener = other._listener, None
        self._plain = other._plain
        self._freezer, other._freezer = other._freezer, None
        self._frames, other._frames = other._frames, bytearray()
        self.started_at = other.started_at
        self.matches_served = other.matches_served
        self._token = other._token
        self._reuse_named = other._reuse_named
        self.reused = True
        self.freeze_method = self._method()

    def _discard_container(self) -> None:
        """Give up the container (not reused): its channel closed, then removed."""
        self._release()
        self._frames = bytearray()
        self._stderr = bytearray()
        self._buffer = bytearray()
        self._token = None
        self._reuse_named = False
        self._killed = False
        self.matches_served = 0

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
        # The container goes in the background (``engine.wait_for_removals`` waits for it).
        engine.current().remove_later(self._container_id, exits=exits)
        self._container_id = None
        self._frozen = False


def _agent_exit_description(
    report: dict[str, Any], limits: SandboxLimits, stderr: bytearray
) -> str:
    """How a supervised agent process ended, from its supervisor's report."""
    code = report.get("exit_code")
    oom_kills = report.get("oom_kills")
    if isinstance(oom_kills, int) and oom_kills > 0:
        how = f"it ran out of memory (the limit is {limits.mem_limit_mb} MB)"
    elif isinstance(code, int) and not isinstance(code, bool) and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        how = f"it was killed by {name}"
    elif isinstance(code, int) and not isinstance(code, bool):
        how = f"it exited with code {code}"
    else:
        how = "it ended"
    tail = stderr.decode("utf-8", errors="replace").strip()[-2000:]
    return how + (f"; it wrote: {tail}" if tail else "")


def _forget_freezes_in_child() -> None:
    # A forked child must not believe the parent's freezes awaiting confirmation are its own.
    global _unconfirmed
    _unconfirmed = threading.local()


os.register_at_fork(after_in_child=_forget_freezes_in_child)

"""The harness: runs one agent inside the sandbox and answers the controller in JSON lines.

Started as ``python3 -I -u /opt/arena/harness.py`` (docker backend) or the same command in a
subprocess (process backend). Standard library only: it runs inside the sandbox image, which holds
Debian's python3 and nothing else.

Before any agent code runs it keeps private duplicates of fd 0 and fd 1 for the protocol, points
fd 0 at /dev/null and fd 1 and 2 at a pipe it drains itself, so nothing the agent prints (from
Python or from C) and nothing it reads can touch the channel. What the agent prints is returned
with each reply, cut at 8 KiB a call and 256 KiB a match: the start and the end are kept, the
cut marked.

Protocol (one JSON object a line, both ways; docs/architecture.md, "The sandbox protocol"):

* request ``{"id": 0, "type": "load", "protocol": 1, "game": "simple-card", "source": "..."}``:
  compiles the source as ``agent.py``, checks ``GAME`` and ``on_turn``, instantiates ``Agent``;
* request ``{"id": n, "type": "call", "method": "on_turn", "payload": {...}}``: calls the method;
  a missing optional hook answers ``ok`` with ``null``;
* request ``{"id": n, "type": "ping"}`` (a warm-pool container, before any agent code is there):
  answers ``ok`` with ``{"protocol": N}``, proof that the harness runs and listens;
* every reply: ``{"id", "ok", "result" | "error": {"type", "message", "traceback"}, "stdout",
  "elapsed_ms", "cpu_ms"}``, plus ``"fatal": true`` when the agent ended its own process
  (``sys.exit`` in a hook) and the harness exits right after the reply. ``elapsed_ms`` is the wall
  time of the agent's own method (or of loading it), measured here around that call and nothing
  else, less the time the host's other programs kept it from a CPU (``_host_wait_ns``): the
  referee charges it to the agent's budget; ``cpu_ms`` is the CPU time the whole process used in
  that window (for the log). The controller trusts neither beyond its own backstop.

A result must be JSON without NaN or infinities (refused here as ``InvalidReply``, as in
process). The controller checks every reply again and more strictly (bounded size and nesting,
no lone surrogates): a result that fails there is the agent's protocol violation, a crash.
Texts the harness writes itself (error messages, tracebacks, captured output) are made valid
UTF-8 here, so only the agent's own result can fail that way.

The model gateway (docs/sandbox.md, "The model gateway"): a load request may carry ``"gateway":
{"token": "...", "sys_path": [...]}``. The harness then serves an OpenAI-compatible endpoint on
127.0.0.1 (``ModelEndpoint``) and sets ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` (the token, worth
nothing outside this match) before the agent loads. While one of the agent's methods runs, each
request to ``/v1/chat/completions`` or ``/v1/models`` goes to the controller as a line
``{"id": <the call's id>, "type": "model", "seq": k, "method", "path", "token", "body"}`` (the
body as text) and the controller writes back ``{"type": "model_reply", "seq": k, "status": N,
"body": {...}}`` on the request channel before it reads the call's reply (with ``"refuse_rest":
{"status", "body"}`` once every further request of the call would be refused: the harness then
answers those itself). The time spent waiting
for those answers is taken out of ``elapsed_ms`` and reported as ``model_ms``. Starting the
endpoint and importing ``openai`` (seconds on a busy host) happen before the agent's load window,
reported as the load reply's ``preload_ms``: the platform's time, not the agent's.

A load request with another ``protocol`` is refused with the error type ``ProtocolMismatch``, so
a controller never talks to a stale image without saying so.

It starts in every sandbox of every match, so it imports only what the interpreter has built in
(``_json``, ``_thread``, ``_signal``: the C halves of ``json``, ``threading`` and ``signal``, which
would pull in ``re``, ``enum``, ``functools`` and ``collections``, 25 modules read through the
container's overlay file system). JSON is read and written by the same C scanner and encoder
``json.loads`` and ``json.dumps`` use, with their defaults; ``traceback`` loads only when an
agent's exception needs one.
"""

from __future__ import annotations

import _json
import _signal
import _thread
import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Bumped whenever a message changes shape; checked by the ``load`` request.
PROTOCOL_VERSION = 4

# These three mirror games/core/agent.py (the harness cannot import games); a test keeps them equal.
STDOUT_CAP_PER_CALL_BYTES = 8 * 1024
STDOUT_CAP_PER_MATCH_BYTES = 256 * 1024
STDOUT_CUT_MARK = (
    "\n[... output cut here: the limit is 8 KiB a call and 256 KiB a match; its start and its "
    "end are kept ...]\n"
)

_CUT_MARK_BYTES = STDOUT_CUT_MARK.encode()

#: Lifecycle methods an agent may implement; any other method name in a request is refused.
LIFECYCLE_METHODS = ("on_match_start", "on_round_start", "on_turn", "on_round_end", "on_match_end")

_TRACEBACK_LIMIT = 8
_JSON_WHITESPACE = " \t\n\r"
_INF = float("inf")


class _DecoderSettings:
    """What ``_json.make_scanner`` reads from its argument: ``json.JSONDecoder``'s defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": -_INF, "Infinity": _INF, "NaN": _INF - _INF}.get


# typeshed types the argument as the scanner itself; it is any object with those attributes.
_scan = _json.make_scanner(_DecoderSettings())  # type: ignore[arg-type]


def _loads(data: bytes) -> Any:
    """``json.loads(data)`` for UTF-8 input; ``ValueError`` when it is not one JSON value."""
    text = data.decode("utf-8", "surrogatepass")
    start = len(text) - len(text.lstrip(_JSON_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration as exc:
        raise ValueError(f"expecting a JSON value at character {exc.value}") from None
    if text[end:].strip(_JSON_WHITESPACE):
        raise ValueError(f"extra data after the JSON value at character {end}")
    return value


def _not_serializable(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _dumps(value: Any) -> str:
    """``json.dumps(value, allow_nan=False)``: the same C encoder with the same settings."""
    if isinstance(value, str):
        return str(_json.encode_basestring_ascii(value))
    encode = _json.make_encoder(
        {}, _not_serializable, _json.encode_basestring_ascii, None, ": ", ", ", False, False, False
    )
    return "".join(encode(value, 0))


class _Capture:
    """Collects what the agent writes to fd 1 and 2, keeping at most the caps and dropping the rest.

    A thread drains the pipe all the time so that a flood never blocks the agent on a full pipe;
    bytes past the caps are read and thrown away (on the agent's own CPU time).
    """

    def __init__(self) -> None:
        self._read_fd, write_fd = os.pipe()
        # A private end for our own end-of-call markers: the agent may close or replace fd 1.
        self._marker_fd = os.dup(write_fd)
        os.dup2(write_fd, 1)
        os.dup2(write_fd, 2)
        os.close(write_fd)
        self._lock = _thread.allocate_lock()
        # Held except between the drain thread finding the end marker and ``collect`` seeing it.
        self._marker_arrived = _thread.allocate_lock()
        self._marker_arrived.acquire()
        self._kept = bytearray()  # the start of this call's output (all of it when not cut)
        self._end = bytearray()  # once cut: the latest bytes, at most ``_end_room`` of them
        self._end_room = 0
        self._cut = False
        self._match_used = 0
        self._pending_marker: bytes | None = None
        self._marker_seen = False
        self._tail = b""
        _thread.start_new_thread(self._drain, ())

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self._read_fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            with self._lock:
                self._take(chunk)

    def _take(self, chunk: bytes) -> None:
        marker = self._pending_marker
        if marker is not None:
            data = self._tail + chunk
            at = data.find(marker)
            if at >= 0:
                self._keep(data[:at])
                self._tail = b""
                self._pending_marker = None
                self._marker_seen = True
                self._keep(data[at + len(marker) :])
                self._marker_arrived.release()
                return
            # Hold back a marker's length in case the marker straddles two reads.
            cut = max(0, len(data) - len(marker))
            self._keep(data[:cut])
            self._tail = data[cut:]
            return
        self._keep(chunk)

    def _keep(self, data: bytes) -> None:
        if not data:
            return
        if not self._cut:
            budget = max(
                0, min(STDOUT_CAP_PER_CALL_BYTES, STDOUT_CAP_PER_MATCH_BYTES - self._match_used)
            )
            if len(self._kept) + len(data) <= budget:
                self._kept += data
                return
            # Over the budget: keep the start (half the room beside the marker) and, from now
            # on, the latest bytes (the other half): the last lines before a failure matter.
            self._cut = True
            room = max(0, budget - len(_CUT_MARK_BYTES))
            head = room // 2
            self._kept += data  # the start may be in this very chunk: split it here
            self._end = bytearray(self._kept[head:])
            del self._kept[head:]
            self._end_room = room - head
        else:
            self._end += data
        if len(self._end) > self._end_room:
            del self._end[: len(self._end) - self._end_room]

    def collect(self, wait_s: float = 1.0) -> str:
        """Everything the agent wrote since the last collect, capped, with the cut marked."""
        for stream in (sys.stdout, sys.stderr):
            # The agent may have closed or replaced it; what it wrote before is in the pipe.
            try:  # noqa: SIM105 - contextlib is not loaded here (see the module's docstring)
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        marker = b"\0arena-end-" + os.urandom(8).hex().encode() + b"\0"
        arrived = False
        with self._lock:
            self._pending_marker = marker
            self._marker_seen = False
        try:
            os.write(self._marker_fd, marker)
        except OSError:
            pass
        else:
            arrived = self._marker_arrived.acquire(timeout=wait_s)
        with self._lock:
            if self._marker_seen and not arrived:
                # Found just after the wait gave up: take back the lock the drain released.
                self._marker_arrived.acquire()
            if not self._marker_seen:
                # The drain thread is starved (the agent holds the CPU); keep what arrived.
                self._keep(self._tail)
                self._tail = b""
                self._pending_marker = None
            kept, end, cut = bytes(self._kept), bytes(self._end), self._cut
            self._match_used += len(kept) + len(end) + (len(_CUT_MARK_BYTES) if cut else 0)
            self._kept = bytearray()
            self._end = bytearray()
            self._cut = False
        if not cut:
            return kept.decode("utf-8", errors="replace")
        # A character split by a cut is dropped, so the text stays within the budget.
        head = kept.decode("utf-8", errors="ignore")
        return head + STDOUT_CUT_MARK + end.decode("utf-8", errors="ignore")


class Harness:
    """The protocol loop: read a request, run it, write one reply line."""

    def __init__(self, requests: Any, replies: Any, capture: _Capture) -> None:
        self.requests = requests
        self.replies = replies
        self.capture = capture
        self.agent: Any = None
        self._write_lock = _thread.allocate_lock()
        #: The model gateway's forwarder, when the load request asked for an endpoint.
        self.forwarder: ModelForwarder | None = None

    def serve(self) -> int:
        """Answer requests until the controller closes the channel; return the exit code."""
        for line in self.requests:
            try:
                request = _loads(line)
                request_id = request["id"]
                kind = request["type"]
            except (ValueError, KeyError, TypeError) as exc:
                self._write({"id": None, "ok": False, "error": _error("ProtocolError", str(exc))})
                return 2
            if kind == "load":
                reply, fatal = self._load(request)
            elif kind == "call":
                reply, fatal = self._call(request)
            elif kind == "ping" and self.agent is None:
                reply, fatal = {"ok": True, "result": {"protocol": PROTOCOL_VERSION}}, False
            elif kind == "exit":
                # The match is over (supervised container): end without a word; the supervisor
                # reports once it has swept what this process left.
                return 0
            else:
                reply, fatal = {"ok": False, "error": _error("ProtocolError", kind)}, True
            reply["id"] = request_id
            if fatal:
                reply["fatal"] = True
            self._write(reply)
            if fatal:
                return 3
        return 0

    def _write(self, reply: dict[str, Any]) -> None:
        # Every reply has every field, the early refusals included.
        reply.setdefault("stdout", "")
        reply.setdefault("elapsed_ms", 0.0)
        reply.setdefault("cpu_ms", 0.0)
        self._write_line(_dumps(reply).encode())

    def _write_line(self, line: bytes) -> None:
        # The model endpoint's thread writes model requests on the same channel.
        data = memoryview(line + b"\n")
        with self._write_lock:
            while data:  # a socket may take a long line in parts
                data = data[self.replies.write(data) :]
            self.replies.flush()

    def _read_line(self) -> bytes:
        return bytes(self.requests.readline())

    def _start_gateway(self, settings: Any) -> None:
        """Serve the model endpoint and point the agent's OpenAI client at it."""
        if not isinstance(settings, dict) or not isinstance(settings.get("token"), str):
            raise _LoadError("the controller sent a malformed gateway setting")
        for entry in settings.get("sys_path") or []:
            # The process backend runs without site-packages: where its openai package is.
            if isinstance(entry, str) and entry not in sys.path:
                sys.path.append(entry)
        self.forwarder = ModelForwarder(self._write_line, self._read_line, settings["token"])
        read_timeout_s = settings.get("read_timeout_s", GATEWAY_READ_TIMEOUT_S)
        if not isinstance(read_timeout_s, int | float) or not 0 < read_timeout_s <= 60:
            read_timeout_s = GATEWAY_READ_TIMEOUT_S
        endpoint = ModelEndpoint(self.forwarder, float(read_timeout_s))
        endpoint.start()
        os.environ["OPENAI_BASE_URL"] = f"http://127.0.0.1:{endpoint.port}/v1"
        os.environ["OPENAI_API_KEY"] = settings["token"]

    def _load(self, request: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        if request.get("protocol") != PROTOCOL_VERSION:
            message = (
                f"the controller speaks protocol {request.get('protocol')!r}, this harness "
                f"{PROTOCOL_VERSION}: the sandbox image is out of date (run `make image`)"
            )
            return {"ok": False, "error": _error("ProtocolMismatch", message)}, True
        preload_ms = 0.0
        if request.get("gateway") is not None:
            # Before the agent's window: the endpoint, and the OpenAI client's import (seconds
            # on a busy host), are the platform's to pay, not the agent's load budget.
            began = time.perf_counter()
            try:
                self._start_gateway(request["gateway"])
            except _LoadError as exc:
                return {"ok": False, "error": _error("LoadError", str(exc))}, True
            _preload_openai()
            preload_ms = (time.perf_counter() - began) * 1000
        mark = _mark()
        error = None
        try:
            self.agent = _instantiate(str(request["source"]), str(request["game"]))
        except _LoadError as exc:
            error = _error("LoadError", str(exc))
        except SystemExit as exc:
            error = _error("SystemExit", f"the agent called sys.exit({exc.code!r}) while loading")
        except BaseException as exc:  # the agent's own code failed: tell its owner why
            error = _error(type(exc).__name__, _safe_str(exc), _traceback(exc, -_TRACEBACK_LIMIT))
        reply: dict[str, Any] = {"ok": error is None, **_window(mark)}
        if preload_ms:
            reply["preload_ms"] = preload_ms
        if error is None:
            reply["result"] = {"protocol": PROTOCOL_VERSION}
        else:
            reply["error"] = error
        reply["stdout"] = self.capture.collect()
        return reply, error is not None

    def _call(self, request: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        method = request.get("method")
        if self.agent is None or method not in LIFECYCLE_METHODS:
            return {"ok": False, "error": _error("ProtocolError", f"cannot call {method!r}")}, True
        ok, result, error, fatal = True, None, None, False
        forwarder = self.forwarder
        if forwarder is not None:
            forwarder.open_window(request.get("id"))
        mark = _mark()
        hook = None
        try:
            hook = getattr(self.agent, str(method), None)
            raw = None if hook is None else hook(request.get("payload"))
        except SystemExit as exc:
            ok, fatal = False, True
            error = _error("SystemExit", f"{method} called sys.exit({exc.code!r})")
        except BaseException as exc:  # the agent's exception: the referee decides its cost
            ok = False
            error = _error(type(exc).__name__, _safe_str(exc), _traceback(exc, _TRACEBACK_LIMIT))
        window = _window(mark)
        if forwarder is not None:
            # The model's time (waiting for the controller's answer) is not the agent's.
            model_s = forwarder.close_window()
            window["elapsed_ms"] = max(0.0, window["elapsed_ms"] - model_s * 1000)
            window["model_ms"] = model_s * 1000
        if ok and hook is not None:
            try:
                # Serialised here so a reply JSON cannot carry fails like the in-process one.
                _dumps(raw)
                result = raw
            except (TypeError, ValueError, RecursionError) as exc:
                ok = False
                error = _error("InvalidReply", f"the reply could not be sent as JSON: {exc}")
        reply: dict[str, Any] = {"ok": ok, **window}
        if ok:
            reply["result"] = result
        else:
            reply["error"] = error
        reply["stdout"] = self.capture.collect()
        return reply, fatal


#: The sandbox's CPU counters (its cgroup, as the container sees it): (file of the CPU time its
#: processes used, unit in ns; file and key of the time the CPU quota held it back, unit in ns).
#: cgroup v1 (separate or joined controllers) and v2; none readable: no time is taken off.
_CGROUP_COUNTERS = (
    (
        "/sys/fs/cgroup/cpuacct/cpuacct.usage",
        "",
        1,
        "/sys/fs/cgroup/cpu/cpu.stat",
        "throttled_time",
        1,
    ),
    (
        "/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage",
        "",
        1,
        "/sys/fs/cgroup/cpu,cpuacct/cpu.stat",
        "throttled_time",
        1,
    ),
    (
        "/sys/fs/cgroup/cpu.stat",
        "usage_usec",
        1000,
        "/sys/fs/cgroup/cpu.stat",
        "throttled_usec",
        1000,
    ),
)
#: This thread's scheduler counters: ns on a CPU, ns waiting on a run queue, time slices.
_THREAD_SCHEDSTAT = "/proc/thread-self/schedstat"
#: The harness's own flag (``--cpu-of-process``): this sandbox has no cgroup of its own (the
#: ``process`` backend), so the cgroup files above are the host's or the worker's, whose CPU
#: time is everyone's; the sandbox's CPU time is then this process's, all its threads.
CPU_OF_PROCESS_FLAG = "--cpu-of-process"
_cpu_of_process = False


def _read(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 4096)
    finally:
        os.close(fd)


def _counter(path: str, key: str) -> int:
    """A number from a counter file: its whole content, or the value after ``key``."""
    text = _read(path).decode("ascii")
    if not key:
        return int(text)
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return int(value)
    raise ValueError(key)


def _contention() -> tuple[int, int, int, int] | None:
    """(CPU ns the sandbox used, ns its quota held it back, ns this thread ran, ns it waited for
    a CPU) now, or ``None`` when the counters cannot be read."""
    try:
        run, wait = (int(x) for x in _read(_THREAD_SCHEDSTAT).split()[:2])
    except (OSError, ValueError):
        return None
    if _cpu_of_process:
        # Children the agent forks are not counted here (the process backend isolates nothing
        # and runs trusted code: docs/sandbox.md); no CPU quota, so nothing is throttled.
        return time.process_time_ns(), 0, run, wait
    for usage_path, usage_key, usage_ns, stat_path, throttled_key, throttled_ns in _CGROUP_COUNTERS:
        try:
            used = _counter(usage_path, usage_key) * usage_ns
            throttled = _counter(stat_path, throttled_key) * throttled_ns
        except (OSError, ValueError):
            continue
        return used, throttled, run, wait
    return None


def _host_wait_ns(before: tuple[int, int, int, int], after: tuple[int, int, int, int]) -> int:
    """The time in a window that the host's other programs kept the agent from a CPU.

    The agent's thread waited ``wait`` ns on a run queue. Part of that it owes itself: while it
    waited its own other processes and threads could run (``used - run``, the sandbox's CPU time
    beyond this thread's: a fork bomb's children, its worker threads), and its CPU quota could
    hold the whole sandbox back because it had used it up (``throttled``). The rest it waited for
    CPUs that programs outside its sandbox held (a loaded host): not its time. Counted this way
    an agent can only lose: its own processes' CPU time is taken from the discount even when it
    ran beside the waiting thread, on another core. The kernel brings the sandbox's total up to
    date later than the thread's own counters, so the sandbox's share is never taken as
    negative, and the discount never exceeds the thread's wait.
    """
    used, throttled, run, wait = (b - a for a, b in zip(before, after, strict=True))
    own = max(0, used - run) + max(0, throttled)
    return max(0, wait - own)


def _mark() -> tuple[float, float, tuple[int, int, int, int] | None]:
    """The start of a window: wall clock, process CPU time, contention counters."""
    return time.perf_counter(), time.process_time(), _contention()


def _window(mark: tuple[float, float, tuple[int, int, int, int] | None]) -> dict[str, float]:
    """The agent's own time since ``mark``, in ms: the wall window less what the host's load
    took from it, never less than the CPU time its process used in it (charged); and that CPU
    time (logged). The kernel's per-thread counters lag a little: the CPU time is exact."""
    started, cpu_started, counters = mark
    wall_ns = (time.perf_counter() - started) * 1e9
    cpu_ms = (time.process_time() - cpu_started) * 1000
    host_ns = 0
    end = _contention() if counters is not None else None
    if counters is not None and end is not None:
        host_ns = min(_host_wait_ns(counters, end), int(wall_ns))
    charged_ms = max((wall_ns - host_ns) / 1e6, min(cpu_ms, wall_ns / 1e6))
    return {"elapsed_ms": charged_ms, "cpu_ms": cpu_ms}


def _preload_openai() -> None:
    """Import the ``openai`` package the image carries, so the agent's own import finds it
    loaded; an image or a machine without it loads nothing (the agent's import then says so)."""
    try:  # noqa: SIM105 - contextlib is not loaded here (see the module's docstring)
        __import__("openai")
    except Exception:  # noqa: S110 - the agent's own import tells its owner what is wrong
        pass


class _LoadError(Exception):
    """The source loaded but is not an agent for this game."""


class _AgentSource:
    """The agent module's ``__loader__``: it knows the one source (for ``linecache``)."""

    def __init__(self, source: str) -> None:
        self.source = source

    def get_source(self, name: str) -> str:
        """The agent's source, whatever the module name asked for."""
        return self.source


def _instantiate(source: str, game: str) -> Any:
    module = type(sys)("agent")
    module.__file__ = "agent.py"
    # Registered so that dataclasses, pickle and typing can find the agent's own classes.
    sys.modules["agent"] = module
    # Tracebacks (and ``inspect``) find the agent's own lines through linecache's lazy path,
    # which asks the module's loader; linecache itself loads only if one is ever needed.
    module.__dict__["__loader__"] = _AgentSource(source)
    code = compile(source, "agent.py", "exec")
    exec(code, module.__dict__)  # noqa: S102 - running the agent is the harness's purpose
    agent_class = module.__dict__.get("Agent")
    if not isinstance(agent_class, type):
        raise _LoadError("agent.py defines no class named Agent")
    declared = getattr(agent_class, "GAME", game)
    if declared != game:
        raise _LoadError(f"Agent.GAME is {declared!r} but this match plays {game!r}")
    agent = agent_class()
    if not callable(getattr(agent, "on_turn", None)):
        raise _LoadError("Agent has no on_turn method")
    return agent


def _traceback(exc: BaseException, limit: int) -> str:
    """The traceback from the agent's first frame on: the harness's own frames are noise to it."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    try:
        import traceback  # only when an agent's exception needs it: most matches never do

        return "".join(traceback.format_exception(type(exc), exc, tb, limit=limit))
    except Exception:  # a traceback that cannot be rendered must not lose the reply
        return ""


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # an exception whose __str__ raises: say so rather than fail the reply
        return f"<{type(exc).__name__} whose message could not be shown>"


def _error(kind: str, message: str, tb: str = "") -> dict[str, str]:
    return {"type": _valid(kind), "message": _valid(message), "traceback": _valid(tb)}


def _valid(text: str) -> str:
    """``text`` as valid UTF-8: a lone surrogate (an exception message can hold one) becomes ?."""
    return text.encode("utf-8", errors="replace").decode("utf-8")


# --- the supervisor (a container that serves several matches of one submission) ----------------

#: Where a match may leave files; emptied after every match (the mount points stay).
SCRATCH_DIRS = ("/tmp", "/dev/shm", "/dev/mqueue")  # noqa: S108 - the container's own tmpfs
#: System V IPC objects outlive their processes; any left after a match discards the container.
SYSV_IPC_TABLES = ("/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg")
#: How long the sweep may take to see every process of a match gone.
SWEEP_DEADLINE_S = 2.0
_PR_SET_DUMPABLE = 4
_SIGKILL = 9


class _LineReader:
    """Lines from a descriptor, read with ``os.read`` so nothing past a line is held back
    unseen: after a ``spawn`` the agent process reads the same descriptor."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""

    def readline(self) -> bytes | None:
        """The next line without its newline; ``None`` at the end of the input."""
        while b"\n" not in self.buffer:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line


class Supervisor:
    """The container's pid 1 when it may serve several matches: one agent process per match.

    Its own protocol on the container's stdin and stdout, one JSON line each way:

    * ``{"id": n, "type": "ping"}`` answers ``ok`` with ``{"protocol": N, "token": T}``;
    * ``{"id": n, "type": "spawn"}`` starts a fresh agent process (``python3 -I -u`` this file,
      an empty environment, cwd /tmp, umask 022, its own session, the container's stdin, stdout
      and stderr), answers ``ok`` with ``{"protocol": N, "token": T, "pid": p}`` and hands the
      channel over: the controller then speaks the per-call protocol above with that process
      (``load``, ``call``, ``exit``) until it exits. The supervisor then kills every other
      process in the container, empties ``SCRATCH_DIRS``, checks what it cannot reset, and
      writes ``{"id": n, "type": "reset", "ok": clean, "token": T, "problems": [...],
      "matches", "exit_code", "oom_kills", "elapsed_ms"}`` (``exit_code`` of the agent process,
      -N for signal N; ``oom_kills`` during the match); nothing else is read until then. That
      report arrives in place of a reply when the agent process ends during a call.

    ``T`` is a random token drawn at start and written only to stdout, which no agent can read:
    a report forged by an agent (it holds stdout during its match) lacks it. The end of the
    input ends the supervisor, and with it (pid 1) the container.

    Why the agent (same uid 65534: without capabilities nothing can change uid) cannot tamper:
    the supervisor is the pid namespace's init, which the kernel shields from every signal it
    did not install a handler for (it installs none; SIGINT is ignored), so no kill, stop or
    interrupt reaches it; it makes itself non-dumpable at start, so its /proc files (memory,
    descriptors, environment) belong to root and ptrace-style access is refused (ptrace and
    process_vm_* are denied by seccomp besides); what a same-uid process may still change from
    outside (rlimits through prlimit, nice value, CPU affinity, scheduling policy) is compared
    with its value at start after every match, and any difference, unread input, a process
    that survives the sweep or a file that cannot be removed makes the report not clean: the
    controller discards the container.
    """

    def __init__(self, requests: _LineReader, replies_fd: int) -> None:
        self.requests = requests
        self.replies_fd = replies_fd
        self.token = os.urandom(16).hex()
        self.matches = 0
        self.baseline = _fingerprint()
        self.channel_baseline = _channel_settings(requests.fd, replies_fd)

    def serve(self) -> int:
        """Answer the controller until its channel ends; return the exit code."""
        while True:
            line = self.requests.readline()
            if line is None:
                return 0
            try:
                request = _loads(line)
                request_id = request["id"]
                kind = request["type"]
            except (ValueError, KeyError, TypeError) as exc:
                self._write({"id": None, "ok": False, "error": _error("ProtocolError", str(exc))})
                return 2
            if kind == "ping":
                self._write({"id": request_id, "ok": True, "result": self._hello()})
            elif kind == "spawn" and not self.requests.buffer:
                self._run_match(request_id)
            else:
                message = f"the supervisor cannot {kind!r} now"
                self._write(
                    {"id": request_id, "ok": False, "error": _error("ProtocolError", message)}
                )
                return 2

    def _hello(self) -> dict[str, Any]:
        return {"protocol": PROTOCOL_VERSION, "token": self.token}

    def _run_match(self, request_id: Any) -> None:
        try:
            pid = spawn_agent(self.requests.fd, self.replies_fd)
        except OSError as exc:
            error = _error("SpawnError", f"the agent process could not start: {exc}")
            self._write({"id": request_id, "ok": False, "error": error})
            return
        self._write({"id": request_id, "ok": True, "result": {**self._hello(), "pid": pid}})
        oom_kills = _oom_kills()
        status = wait_for_agent(pid)
        oom_kills = _oom_kills() - oom_kills
        self.matches += 1
        started = time.perf_counter()
        problems = reset_container(self.baseline)
        if _input_waiting(self.requests.fd):
            problems.append("input was written to the channel that the controller did not send")
        if _channel_settings(self.requests.fd, self.replies_fd) != self.channel_baseline:
            problems.append("the channel's settings were changed")
        self._write(
            {
                "id": request_id,
                "type": "reset",
                "ok": not problems,
                "token": self.token,
                "problems": problems,
                "matches": self.matches,
                "exit_code": status,
                "oom_kills": oom_kills,
                "elapsed_ms": (time.perf_counter() - started) * 1000,
            }
        )

    def _write(self, reply: dict[str, Any]) -> None:
        reply.setdefault("elapsed_ms", 0.0)
        data = _dumps(reply).encode() + b"\n"
        while data:
            data = data[os.write(self.replies_fd, data) :]


def spawn_agent(requests_fd: int = 0, replies_fd: int = 1) -> int:
    """Start one match's agent process: this file without arguments, the channel as its stdin
    and stdout, nothing else of ours in it (our other descriptors close on exec; the
    environment is empty)."""
    actions = [
        (os.POSIX_SPAWN_DUP2, fd, target)
        for fd, target in ((requests_fd, 0), (replies_fd, 1))
        if fd != target
    ]
    return os.posix_spawn(
        sys.executable,
        [sys.executable, "-I", "-u", os.path.abspath(__file__)],
        {},
        file_actions=actions,
        setsid=True,
    )


def wait_for_agent(pid: int) -> int:
    """Wait until the agent process ends, reaping every orphan meanwhile (we are init here: a
    zombie left unreaped would hold a slot of the pids limit); its exit code (-N: signal N)."""
    while True:
        try:
            ended, status = os.wait()
        except ChildProcessError:
            return -1
        if ended == pid:
            return os.waitstatus_to_exitcode(status)


def _oom_kills() -> int:
    """How many processes the kernel killed for memory in this container so far (the memory
    cgroup's ``oom_kill`` count, v2 or v1), or 0 where it cannot be read."""
    for path in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
        try:
            with open(path, "rb") as f:
                for row in f.read().splitlines():
                    name, _, value = row.partition(b" ")
                    if name == b"oom_kill":
                        return int(value)
        except (OSError, ValueError):
            continue
    return 0


def reset_container(baseline: tuple[Any, ...]) -> list[str]:
    """Remove what a match left; the list of what could not be reset (empty: clean)."""
    problems = sweep_processes()
    for place in SCRATCH_DIRS:
        problems += empty_directory(place)
    for table in SYSV_IPC_TABLES:
        try:
            with open(table, "rb") as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        if rows:
            problems.append(f"{len(rows)} System V IPC objects remain ({table})")
    if _fingerprint() != baseline:
        problems.append("the supervisor's limits or scheduling were changed from outside")
    return problems


def sweep_processes() -> list[str]:
    """Kill every process in the container but ourselves, however it forked or detached.

    ``kill(-1, SIGKILL)`` reaches every process we may signal except ourselves and init (us):
    in one pass the kernel holds the task list, and a process with a pending SIGKILL cannot
    fork, so a fork bomb cannot outrun it. Repeated until /proc shows no one else."""
    own = os.getpid()
    deadline = time.monotonic() + SWEEP_DEADLINE_S
    while True:
        try:  # noqa: SIM105 - contextlib is not loaded here (see the module's docstring)
            os.kill(-1, _SIGKILL)
        except ProcessLookupError:  # nobody else to signal
            pass
        _reap()
        others = [pid for pid in _pids() if pid != own]
        if not others:
            return []
        if time.monotonic() > deadline:
            return [f"{len(others)} processes outlived the sweep"]
        time.sleep(0.001)


def _reap() -> None:
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def empty_directory(path: str) -> list[str]:
    """Remove everything under ``path`` (never following a link); what could not be removed."""
    try:
        entries = list(os.scandir(path))
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [f"{path} could not be listed: {exc}"]
    problems: list[str] = []
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                os.chmod(entry.path, 0o700)  # an agent may have taken its own rights away
                problems += empty_directory(entry.path)
                os.rmdir(entry.path)
            else:
                os.unlink(entry.path)
        except OSError as exc:
            problems.append(f"{entry.path} could not be removed: {exc}")
    return problems


def _fingerprint() -> tuple[Any, ...]:
    """What another process of our uid could change about us and our future children."""
    import resource

    limits = tuple(
        resource.getrlimit(getattr(resource, name))
        for name in dir(resource)
        if name.startswith("RLIMIT_")
    )
    return (
        limits,
        os.getpriority(os.PRIO_PROCESS, 0),
        tuple(sorted(os.sched_getaffinity(0))),
        os.sched_getscheduler(0),
    )


def _channel_settings(requests_fd: int, replies_fd: int) -> tuple[Any, ...]:
    """What an agent holding the channel could change for whoever holds it next: the blocking
    mode of its descriptions and, on a socket, its timeouts, buffer sizes and low-water marks."""
    settings: list[Any] = [os.get_blocking(requests_fd), os.get_blocking(replies_fd)]
    if requests_fd == replies_fd:
        import _socket

        sock = _socket.socket(fileno=requests_fd)
        try:
            for option in ("SO_RCVTIMEO", "SO_SNDTIMEO", "SO_RCVBUF", "SO_SNDBUF", "SO_RCVLOWAT"):
                settings.append(sock.getsockopt(_socket.SOL_SOCKET, getattr(_socket, option), 16))
        finally:
            sock.detach()
    return tuple(settings)


def _connect(path: str) -> int:
    """The channel's socket (``--channel``): connected once, before any agent exists here."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.connect(path)
    return int(sock.detach())


def _input_waiting(fd: int) -> bool:
    import select

    readable, _, _ = select.select([fd], [], [], 0)
    return bool(readable)


def _make_undumpable() -> None:
    """PR_SET_DUMPABLE 0: our /proc files become root's, out of reach of a same-uid agent."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def supervise(channel: str | None = None) -> int:
    """The supervisor's entry point (``harness.py --supervise [--channel PATH]``, the container's
    pid 1): the channel is its stdin and stdout, or the unix socket at ``PATH`` (the
    controller's, in a directory mounted into this container only)."""
    if os.getpid() != 1:
        # Its sweep is kill(-1, SIGKILL): anywhere but as a pid namespace's init it would reach
        # every process of its user on the machine.
        sys.stderr.write("harness.py --supervise runs only as a container's pid 1\n")
        return 2
    _make_undumpable()
    # Python installs a SIGINT handler; as init we must install none that an agent can reach.
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    os.umask(0o022)
    os.environ.clear()
    fd = _connect(channel) if channel is not None else None
    if fd is None:
        return Supervisor(_LineReader(0), 1).serve()
    return Supervisor(_LineReader(fd), fd).serve()


# --- the model gateway's endpoint (only when the load request asks for one) -------------------

#: The HTTP endpoint's bounds: a request's head and body, the time to send one whole request
#: (the controller may set another: ``read_timeout_s`` in the load request's gateway setting),
#: the connections served at once (the next ones get a 429 at once), and the queue for the one
#: forwarding slot (calls wait there for the one before them).
GATEWAY_MAX_HEAD_BYTES = 16 * 1024
GATEWAY_MAX_BODY_BYTES = 1024 * 1024
GATEWAY_READ_TIMEOUT_S = 5.0
#: An oversized body is read and dropped up to this much before the 413 (see ``_handle``).
GATEWAY_DISCARD_MAX_BYTES = 16 * 1024 * 1024
GATEWAY_MAX_CONNECTIONS = 4
#: Connections over that limit wait (at most this many) for the one thread that refuses them,
#: which gives each this long to send its request.
GATEWAY_REFUSAL_QUEUE = 64
GATEWAY_REFUSAL_READ_S = 0.1
GATEWAY_FORWARD_WAIT_S = 60.0
#: The largest line forwarded to the controller (below its ``max_reply_bytes``).
GATEWAY_MAX_LINE_BYTES = 900 * 1024
#: The paths forwarded; anything else is answered 404 here.
GATEWAY_PATHS = ("/v1/chat/completions", "/v1/models")

_HTTP_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    409: "Conflict",
    411: "Length Required",
    413: "Payload Too Large",
    429: "Too Many Requests",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


def _gateway_error(status: int, message: str, kind: str, code: str) -> tuple[int, dict[str, Any]]:
    """An OpenAI-shaped error body (``{"error": {"message", "type", "code", "param"}}``)."""
    return status, {"error": {"message": message, "type": kind, "code": code, "param": None}}


class ModelForwarder:
    """Carries one model request at a time to the controller over the protocol channel.

    Open only while an agent's method runs (``open_window`` .. ``close_window``): the controller
    answers model lines only then. ``close_window`` waits for a request in flight, so no reply
    to a model line is ever left for the main loop to read as a request. The time spent waiting
    for the controller's answer is returned by ``close_window``: the harness takes it out of the
    agent's window (the model's time is not the agent's).
    """

    def __init__(self, write_line: Any, read_line: Any, token: str) -> None:
        self._write_line = write_line
        self._read_line = read_line
        self.token = token
        self._slot = _thread.allocate_lock()
        self._open = False
        self._call_id: Any = None
        self._seq = 0
        self._waited_s = 0.0
        #: The answer to every further request of this call, once the controller said it is
        #: certain (no call or model time left): given here without a round trip.
        self._refusal: tuple[int, Any] | None = None

    def open_window(self, call_id: Any) -> None:
        """An agent's method starts: model requests may be forwarded."""
        with self._slot:
            self._open, self._call_id, self._waited_s = True, call_id, 0.0
            self._refusal = None

    def close_window(self) -> float:
        """The method returned: wait for a request in flight, refuse new ones; the wait total."""
        with self._slot:
            self._open = False
            return self._waited_s

    def forward(self, method: str, path: str, token: str, body: str) -> tuple[int, Any]:
        """Send one request to the controller and wait for its answer (status, JSON body)."""
        if not self._slot.acquire(True, GATEWAY_FORWARD_WAIT_S):
            return _gateway_error(
                429,
                "too many model calls at once: make them one after another",
                "rate_limit_error",
                "concurrent_calls",
            )
        try:
            if not self._open:
                return _gateway_error(
                    409,
                    "model calls are answered only while one of your agent's methods runs "
                    "(not while loading, not from a thread that outlives the call)",
                    "invalid_request_error",
                    "outside_call",
                )
            if self._refusal is not None:
                return self._refusal
            self._seq += 1
            line = _dumps(
                {
                    "id": self._call_id,
                    "type": "model",
                    "seq": self._seq,
                    "method": method,
                    "path": path,
                    "token": token,
                    "body": body,
                }
            ).encode()
            if len(line) > GATEWAY_MAX_LINE_BYTES:
                return _gateway_error(
                    413,
                    f"the request is too large once encoded (over {GATEWAY_MAX_LINE_BYTES} "
                    "bytes): send a shorter prompt",
                    "invalid_request_error",
                    "request_too_large",
                )
            started = time.perf_counter()
            try:
                self._write_line(line)
                answer = self._read_line()
            finally:
                self._waited_s += time.perf_counter() - started
            try:
                reply = _loads(answer)
                status, reply_body = int(reply["status"]), reply["body"]
                if reply.get("type") != "model_reply" or reply.get("seq") != self._seq:
                    raise ValueError("not the answer to this request")
                rest = reply.get("refuse_rest")
                if rest is not None:
                    self._refusal = (int(rest["status"]), rest["body"])
            except (ValueError, KeyError, TypeError):
                return _gateway_error(
                    502, "the gateway's answer was unreadable", "api_error", "bad_gateway"
                )
            return status, reply_body
        finally:
            self._slot.release()


class ModelEndpoint:
    """``/v1/chat/completions`` and ``/v1/models`` on 127.0.0.1, for the agent's OpenAI client.

    A minimal HTTP/1.1 server (one request per connection, ``Connection: close``), bounded in
    everything an agent controls: the head and body sizes, the time to send a whole request
    (a slow sender is cut), the connections served at once. Requests for the two paths go to
    the controller through ``ModelForwarder``; the controller decides everything else (the
    token, the model, the budget). The socket module loads only here: agents without a gateway
    never pay for it.
    """

    def __init__(self, forwarder: ModelForwarder, read_timeout_s: float) -> None:
        import socket  # noqa: PLC0415 - only agents with a gateway pay for this import

        self._socket_module = socket
        self.forwarder = forwarder
        self.read_timeout_s = read_timeout_s
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(16)
        self.port = int(self._listener.getsockname()[1])
        self._active = 0
        self._lock = _thread.allocate_lock()
        self._refusals: list[Any] = []
        self._refusals_waiting = _thread.allocate_lock()
        self._refusals_waiting.acquire()

    def start(self) -> None:
        """Serve in a thread of its own until the process ends."""
        _thread.start_new_thread(self._accept_loop, ())
        _thread.start_new_thread(self._refuse_loop, ())

    def _accept_loop(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                time.sleep(0.01)  # out of descriptors (the agent's doing): retry shortly
                continue
            with self._lock:
                busy = self._active >= GATEWAY_MAX_CONNECTIONS
                if not busy:
                    self._active += 1
            if busy:
                self._queue_refusal(conn)
                continue
            try:
                _thread.start_new_thread(self._serve_one, (conn,))
            except RuntimeError:  # no thread left (the agent's pids): refuse it
                with self._lock:
                    self._active -= 1
                self._queue_refusal(conn)

    def _queue_refusal(self, conn: Any) -> None:
        """Hand a connection over the limit to the one refusing thread (which reads its request
        before answering 429, so the client reads the answer rather than a reset); past
        ``GATEWAY_REFUSAL_QUEUE`` waiting ones it is closed at once."""
        with self._lock:
            if len(self._refusals) >= GATEWAY_REFUSAL_QUEUE:
                conn.close()
                return
            self._refusals.append(conn)
            if self._refusals_waiting.locked():
                self._refusals_waiting.release()

    def _refuse_loop(self) -> None:
        while True:
            self._refusals_waiting.acquire()
            while True:
                with self._lock:
                    if not self._refusals:
                        break
                    conn = self._refusals.pop(0)
                try:
                    self._read_briefly(conn, time.perf_counter() + GATEWAY_REFUSAL_READ_S)
                    self._respond(
                        conn,
                        *_gateway_error(
                            429,
                            f"more than {GATEWAY_MAX_CONNECTIONS} connections at once to the "
                            "model gateway: make your calls one after another",
                            "rate_limit_error",
                            "concurrent_calls",
                        ),
                    )
                except OSError:
                    pass
                self._close(conn, GATEWAY_REFUSAL_READ_S)

    def _read_briefly(self, conn: Any, deadline: float) -> None:
        """Read a request's head and body (dropped) until it is whole or ``deadline``."""
        data = bytearray()
        wanted = -1
        while wanted < 0 or len(data) < wanted:
            chunk = self._recv(conn, deadline)
            if not chunk:
                return
            data += chunk
            if wanted < 0 and b"\r\n\r\n" in data:
                head, _, _ = bytes(data).partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length" and value.strip().isdigit():
                        length = int(value.strip())
                wanted = len(head) + 4 + min(length, GATEWAY_MAX_BODY_BYTES)
            if len(data) > GATEWAY_MAX_HEAD_BYTES + GATEWAY_MAX_BODY_BYTES:
                return

    def _serve_one(self, conn: Any) -> None:
        # The connection's slot is given back before its answer is written: a client that has
        # read the answer and calls again at once must find the slot free, not race this
        # thread's close (its linger can take a while on a loaded host).
        released = [False]

        def release() -> None:
            if not released[0]:
                released[0] = True
                with self._lock:
                    self._active -= 1

        try:
            status, body = self._handle(conn)
            release()
            self._respond(conn, status, body)
        except OSError:
            pass  # the agent closed its end: nobody to answer
        except Exception as exc:  # never let a request kill the endpoint's thread silently
            release()
            try:  # noqa: SIM105 - contextlib is not loaded here (see the module's docstring)
                self._respond(conn, *_gateway_error(500, _safe_str(exc), "api_error", "internal"))
            except OSError:
                pass
        finally:
            release()
            self._close(conn)

    def _close(self, conn: Any, linger_s: float = 0.2) -> None:
        """Close after the answer, reading (briefly, boundedly) what the client still sends: a
        socket closed with unread input resets the connection, and the client could lose the
        answer before reading it."""
        try:
            conn.shutdown(self._socket_module.SHUT_WR)
            conn.settimeout(linger_s)
            for _ in range(16):
                if not conn.recv(65536):
                    break
        except OSError:
            pass
        conn.close()

    def _handle(self, conn: Any) -> tuple[int, Any]:
        deadline = time.perf_counter() + self.read_timeout_s
        data = bytearray()
        while b"\r\n\r\n" not in data:
            if len(data) > GATEWAY_MAX_HEAD_BYTES:
                return _gateway_error(
                    431,
                    "the request's head is too large",
                    "invalid_request_error",
                    "head_too_large",
                )
            chunk = self._recv(conn, deadline)
            if chunk is None:
                return _gateway_error(
                    408,
                    f"the request did not arrive within {self.read_timeout_s:g} s",
                    "invalid_request_error",
                    "slow_request",
                )
            if not chunk:
                raise OSError("closed")
            data += chunk
        head, _, rest = bytes(data).partition(b"\r\n\r\n")
        if len(head) > GATEWAY_MAX_HEAD_BYTES:
            return _gateway_error(
                431, "the request's head is too large", "invalid_request_error", "head_too_large"
            )
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            return _gateway_error(
                400, "not an HTTP/1.x request line", "invalid_request_error", "malformed_http"
            )
        method, target = parts[0], parts[1]
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if not sep:
                return _gateway_error(
                    400, "a malformed header line", "invalid_request_error", "malformed_http"
                )
            headers[name.strip().lower()] = value.strip()
        path = target.split("?", 1)[0]
        if path.startswith("http://") or path.startswith("https://"):
            path = "/" + path.split("/", 3)[-1] if path.count("/") >= 3 else "/"
        path = path.rstrip("/") or "/"
        if path not in GATEWAY_PATHS:
            return _gateway_error(
                404,
                f"no such path {path[:200]!r}: the gateway serves {', '.join(GATEWAY_PATHS)}",
                "invalid_request_error",
                "unknown_path",
            )
        if "transfer-encoding" in headers:
            return _gateway_error(
                411,
                "send the body with a Content-Length (no chunked encoding)",
                "invalid_request_error",
                "length_required",
            )
        try:
            length = int(headers.get("content-length", "0"))
            if length < 0:
                raise ValueError(length)
        except ValueError:
            return _gateway_error(
                400, "an invalid Content-Length", "invalid_request_error", "malformed_http"
            )
        if length > GATEWAY_MAX_BODY_BYTES:
            # Read what a client sends anyway (up to a bound, within the request's time), so
            # that it reads this answer instead of a connection reset in the middle of its send.
            self._discard(conn, min(length, GATEWAY_DISCARD_MAX_BYTES) - len(rest), deadline)
            return _gateway_error(
                413,
                f"the request's body is over {GATEWAY_MAX_BODY_BYTES} bytes: send a shorter prompt",
                "invalid_request_error",
                "request_too_large",
            )
        body = bytearray(rest)
        while len(body) < length:
            chunk = self._recv(conn, deadline)
            if chunk is None:
                return _gateway_error(
                    408,
                    f"the request did not arrive within {self.read_timeout_s:g} s",
                    "invalid_request_error",
                    "slow_request",
                )
            if not chunk:
                raise OSError("closed")
            body += chunk
        authorization = headers.get("authorization", "")
        token = authorization[7:].strip() if authorization[:7].lower() == "bearer " else ""
        text = bytes(body[:length]).decode("utf-8", "replace")
        return self.forwarder.forward(method, path, token[:512], text)

    def _discard(self, conn: Any, size: int, deadline: float) -> None:
        while size > 0:
            chunk = self._recv(conn, deadline)
            if not chunk:
                return
            size -= len(chunk)

    def _recv(self, conn: Any, deadline: float) -> bytes | None:
        """Some bytes, ``b""`` at the end, ``None`` once the request's time is over."""
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return None
        conn.settimeout(remaining)
        try:
            return bytes(conn.recv(65536))
        except self._socket_module.timeout:
            return None

    def _respond(self, conn: Any, status: int, body: Any) -> None:
        payload = _dumps(body).encode()
        head = (
            f"HTTP/1.1 {status} {_HTTP_REASONS.get(status, 'Error')}\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n"
            "Connection: close\r\n"
        )
        if status != 200:
            # The platform already retried what it could: the SDK must not retry on its own.
            head += "x-should-retry: false\r\n"
        conn.settimeout(self.read_timeout_s)
        conn.sendall(head.encode() + b"\r\n" + payload)


def main() -> int:
    """Move the standard descriptors out of the agent's reach, then serve the controller."""
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    capture = _Capture()
    # No terminal sends interrupts here; a SIGINT can only be the agent signalling its init,
    # which forwards it to us. The agent may install its own handler.
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    # The backends start us with an empty environment; this is the second lock.
    os.environ.clear()
    return Harness(requests, replies, capture).serve()


if __name__ == "__main__":
    # os._exit: neither the agent's non-daemon threads nor its atexit hooks may keep us alive.
    if sys.argv[1:2] == ["--supervise"]:
        arguments = sys.argv[2:]
        if arguments[:1] == ["--channel"] and len(arguments) == 2:
            os._exit(supervise(arguments[1]))
        os._exit(supervise() if not arguments else 2)
    _cpu_of_process = sys.argv[1:] == [CPU_OF_PROCESS_FLAG]
    os._exit(main())

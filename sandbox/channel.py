"""The controller's side of the harness protocol, shared by the docker and process backends.

``HarnessHandle`` implements ``games.core.AgentHandle`` on top of a byte channel a backend
provides (``_launch``, ``_send``, ``_receive``, ``_kill``, ``_exit_description``, ``_freeze``,
``_freeze_later``, ``_thaw``, ``_release``). It owns the backstop clock, the reply cap, reply
validation and the translation of what went wrong into the exceptions the referee understands:

* the agent's own doing while loading → ``AgentInitError``;
* no reply within the backstop (the ``timeout_s`` the referee passes: budget plus grace) → the
  agent is killed, ``AgentTimeout``;
* the agent died, or sent something that is not a valid reply → the agent is killed,
  ``AgentCrash`` (a protocol violation: everything read from the harness is hostile);
* an exception in the agent's method (or a result that is not JSON) → ``CallResult(ok=False)``;
* the backend itself failed → ``PlatformError``.

Time: the harness measures the window around the agent's own method (``elapsed_ms``, wall time
inside the sandbox; ``cpu_ms`` for the log). That window, capped at what the controller itself
measured, is what ``CallResult.elapsed_ms`` reports and the referee charges; the controller's own
figure goes to ``wall_ms``. A harness that lies about its window (the agent shares its process)
gains at most the difference between the budget and the backstop.

The model gateway (``sandbox/gateway.py``): with a ``gateway`` set before ``start``, the harness
serves an OpenAI-compatible endpoint to the agent and sends its requests here as model lines
while a call runs. Each is answered (``ModelGateway.handle``) with the agent frozen, so that no
thread of its own computes on the model's time; that time is taken out of what the agent is
charged and added to the call's backstop (at most the per-turn allowance).

A valid reply is one JSON object of at most ``max_reply_bytes`` in valid UTF-8, nested at most
``max_reply_depth`` deep, with finite numbers only and no lone surrogates in any text.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections import deque
from collections.abc import Iterator, Mapping
from typing import Any

from games.core.agent import CallError, CallResult, cap_stdout
from games.core.errors import AgentCrash, AgentInitError, AgentTimeout, PlatformError
from sandbox import host_wait
from sandbox.gateway import ModelGateway
from sandbox.harness import LIFECYCLE_METHODS, PROTOCOL_VERSION
from sandbox.limits import SandboxLimits

#: With a model gateway, the load's backstop grows by this much: the harness starts the endpoint
#: and imports the OpenAI client before the agent's own window (seconds on a busy host).
GATEWAY_PRELOAD_ALLOWANCE_S = 30.0


def _preload_s(reply: Mapping[str, Any]) -> float:
    value = reply.get("preload_ms", 0)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 0.0
    return max(0.0, float(value)) / 1000


class ChannelClosed(Exception):
    """The harness's output ended: its process is gone."""


class ChannelTimeout(Exception):
    """Nothing complete arrived before the deadline. ``host_wait``: what the backstop's
    host-wait extension saw of the agent's threads (``host_wait.summary``), where it looked."""

    def __init__(self, *args: object, host_wait: dict[str, float] | None = None) -> None:
        super().__init__(*args)
        self.host_wait = host_wait


class ReplyTooLarge(Exception):
    """A reply line grew past ``SandboxLimits.max_reply_bytes``."""


class HarnessHandle:
    """An ``AgentHandle`` that runs the harness somewhere and talks JSON lines with it."""

    #: Shown in messages and by ``arena play``; the backends override it.
    backend = "?"

    def __init__(self, source: str, *, name: str, limits: SandboxLimits | None = None) -> None:
        self.source = source
        self.limits = limits or SandboxLimits()
        self._name = name
        self._buffer = bytearray()
        self._next_id = 0
        self._stdout_used = 0
        self._started = False
        self._dead = False
        self._closed = False
        #: What the agent printed while loading (``start`` has no result to carry it).
        self.load_stdout = ""
        #: How the idle agent is frozen (``cgroup-v1``, ``cgroup-v2``, ``pause``, ``signal``), or
        #: ``None`` when it is not; the backends set it once they know.
        self.freeze_method: str | None = None
        #: The model gateway the agent may call (set before ``start``), or ``None``.
        self.gateway: ModelGateway | None = None
        #: Model time within the call in flight (seconds), as this side measured it.
        self._model_s = 0.0

    def _gateway_setting(self) -> dict[str, Any]:
        """What the load request tells the harness about the gateway (the backends add to it)."""
        assert self.gateway is not None
        return {"token": self.gateway.token, "read_timeout_s": self.gateway.read_timeout_s}

    # --- what a backend provides --------------------------------------------------------------

    def _launch(self) -> None:
        """Start the harness; raise ``PlatformError`` when the backend cannot."""
        raise NotImplementedError

    def _send(self, data: bytes, deadline: float) -> None:
        """Write bytes to the harness; ``ChannelClosed`` when it is gone, ``ChannelTimeout`` when
        it does not take them before ``deadline`` (an agent that stopped reading)."""
        raise NotImplementedError

    def _receive(self, deadline: float) -> bytes:
        """Some bytes of the harness's protocol output; ``b""`` at its end.

        Raises ``ChannelTimeout`` when ``time.perf_counter()`` passes ``deadline`` first.
        """
        raise NotImplementedError

    def _kill(self) -> None:
        """Stop the agent now (close the channel first); never raises."""
        raise NotImplementedError

    def _exit_description(self) -> str:
        """After the channel ended: how the agent's process ended, for its owner."""
        raise NotImplementedError

    def _freeze(self) -> None:
        """Stop the idle agent from running until ``_thaw`` (when the limits ask for it)."""

    def _freeze_later(self) -> None:
        """After a call: freeze the idle agent, confirming it only before another agent runs
        (the docker backend overlaps the kernel's freezing with the referee's own work); by
        default the same as ``_freeze``."""
        self._freeze()

    def _thaw(self) -> None:
        """Let a frozen agent run again."""

    def _release(self) -> None:
        """Free everything the agent used; safe to call twice, never raises."""
        raise NotImplementedError

    def _agent_process_ended(self, line: bytes) -> bool:
        """True when ``line`` is not the agent's but its supervisor's word that the agent's
        process ended (a supervised container); by default no backend has a supervisor."""
        return False

    # --- AgentHandle --------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The display name given at construction."""
        return self._name

    def start(self, *, game_id: str, timeout_s: float) -> float | None:
        """Start the harness, send it the source, wait until ``Agent`` is instantiated.

        Returns the agent's own loading time in seconds, as the harness measured it (capped at
        the controller's own measure); ``timeout_s`` is the backstop.
        """
        if self._started:
            raise RuntimeError("start() was called twice on one handle")
        self._started = True
        self._launch()
        request = {
            "type": "load",
            "protocol": PROTOCOL_VERSION,
            "game": game_id,
            "source": self.source,
        }
        backstop_s = timeout_s
        if self.gateway is not None:
            request["gateway"] = self._gateway_setting()
            # The harness imports the OpenAI client before the agent's window: its time.
            backstop_s += GATEWAY_PRELOAD_ALLOWANCE_S
        try:
            reply, wall_s = self._exchange(request, backstop_s, host_wait_extends=True)
        except ChannelTimeout:
            self._die()
            raise AgentInitError(
                f"loading the agent took longer than its {timeout_s:g} s budget "
                "(heavy work at import or in __init__?)"
            ) from None
        except ChannelClosed:
            how = self._exit_description()
            self._die()
            raise AgentInitError(f"the agent's process ended while loading: {how}") from None
        except ReplyTooLarge as exc:
            self._die()
            raise AgentInitError(f"the agent broke the protocol while loading: {exc}") from None
        except _BadReply as exc:
            self._die()
            raise AgentInitError(f"the agent broke the protocol while loading: {exc}") from None
        self.load_stdout = self._stdout(reply)
        if not reply["ok"]:
            error = _call_error(reply.get("error"))
            self._die()
            if error.type == "ProtocolMismatch":
                raise PlatformError(error.message)
            if error.type == "LoadError":
                raise AgentInitError(error.message)
            raise AgentInitError(
                f"loading agent.py raised {error.type}: {error.message}", error.traceback
            )
        self._freeze()
        preload_s = _preload_s(reply)
        if wall_s - preload_s > timeout_s:
            self._die()
            raise AgentInitError(
                f"loading the agent took longer than its {timeout_s:g} s budget "
                "(heavy work at import or in __init__?)"
            )
        return min(float(reply["elapsed_ms"]) / 1000, max(0.0, wall_s - preload_s))

    def call(self, method: str, payload: Mapping[str, Any], timeout_s: float) -> CallResult:
        """Call ``method`` in the sandbox; ``timeout_s`` is the backstop on the whole exchange.

        The result's ``elapsed_ms`` is the harness's window (the agent's own time), ``wall_ms``
        the controller's measure from the write to the reply.
        """
        if method not in LIFECYCLE_METHODS:
            raise ValueError(f"{method!r} is not a lifecycle method")
        if not self._started or self._closed:
            raise AgentCrash("the agent was not started or is already closed")
        if self._dead:
            raise AgentCrash(f"the agent is no longer running: {self._exit_description()}")
        request = {"type": "call", "method": method, "payload": dict(payload)}
        if self.gateway is not None:
            self.gateway.begin_call(method, payload)
        self._thaw()
        try:
            reply, elapsed_s = self._exchange(request, timeout_s, host_wait_extends=True)
        except ChannelTimeout as exc:
            self._die()
            elapsed = float(exc.args[0]) if exc.args else timeout_s
            raise AgentTimeout(method, elapsed, timeout_s, host_wait=exc.host_wait) from None
        except ChannelClosed:
            how = self._exit_description()
            self._die()
            raise AgentCrash(f"the agent's process ended during {method}: {how}") from None
        except (ReplyTooLarge, _BadReply) as exc:
            self._die()
            raise AgentCrash(f"the agent broke the protocol during {method}: {exc}") from None
        stdout = self._stdout(reply)
        if reply.get("fatal"):
            error = _call_error(reply.get("error"))
            self._die()
            raise AgentCrash(f"{error.message}: the agent ended its own process")
        self._freeze_later()
        wall_ms = elapsed_s * 1000
        model_ms = self._model_s * 1000
        ok = bool(reply["ok"])
        return CallResult(
            ok=ok,
            result=reply.get("result") if ok else None,
            error=None if ok else _call_error(reply.get("error")),
            stdout=stdout,
            # Never more than this side saw of the agent's own time: its wall, the model out.
            elapsed_ms=min(float(reply["elapsed_ms"]), max(0.0, wall_ms - model_ms)),
            wall_ms=wall_ms,
            model_ms=model_ms,
            cpu_ms=float(reply["cpu_ms"]) if "cpu_ms" in reply else None,
            freeze=self.freeze_method,
        )

    def close(self) -> None:
        """Kill the agent if it still runs and free everything; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self._dead = True
        self._release()
        if self.gateway is not None:
            self.gateway.close()

    # --- internals ----------------------------------------------------------------------------

    def _agent_threads(self) -> list[int]:
        """The host's ids of the agent's threads, for the backstop's host-wait extension
        (``sandbox/host_wait.py``); the backends that can read them say so."""
        return []

    def _die(self) -> None:
        """The agent must not run on: kill it (the container stays until ``close``)."""
        if not self._dead:
            self._dead = True
            self._kill()

    def _exchange(
        self, request: dict[str, Any], timeout_s: float, *, host_wait_extends: bool = False
    ) -> tuple[dict[str, Any], float]:
        """Send one request and read its reply; the clock covers exactly that.

        ``host_wait_extends``: past ``timeout_s`` the wait goes on by as long as one of the
        agent's threads waited for a CPU the host's other programs held meanwhile
        (``host_wait.extension_s``: bounded, and none for an agent that ran its backstop's worth
        of CPU)."""
        request_id = self._next_id
        self._next_id += 1
        data = json.dumps({"id": request_id, **request}, allow_nan=False).encode() + b"\n"
        mark = host_wait.thread_times(self._agent_threads()) if host_wait_extends else None
        started = time.perf_counter()
        deadline = started + timeout_s
        host_extension = 0.0
        self._model_s = 0.0
        serves_model = self.gateway is not None and request["type"] == "call"
        try:
            self._send(data, deadline)
            while True:
                try:
                    line = self._read_line(deadline)
                except ChannelTimeout:
                    if not mark:
                        raise
                    more = self._host_wait_more(mark, started, timeout_s, host_extension)
                    host_extension += more
                    deadline += more
                    continue
                if self._agent_process_ended(line):
                    raise ChannelClosed()
                reply = _parse_reply(
                    line, request_id, self.limits.max_reply_depth, model_lines=serves_model
                )
                if reply.get("type") != "model":
                    break
                spent = self._serve_model(reply, deadline)
                # The model's time extends the backstop, never past the per-turn allowance.
                assert self.gateway is not None
                extension = min(spent, self.gateway.turn_extension_cap_s() - self._model_s)
                self._model_s += spent
                deadline += max(0.0, extension)
        except ChannelTimeout:
            raise self._timed_out(started, mark) from None
        finished = time.perf_counter()
        if finished > deadline and not (
            mark
            and finished
            <= deadline + self._host_wait_more(mark, started, timeout_s, host_extension)
        ):
            raise self._timed_out(started, mark)
        return reply, finished - started

    def _host_wait_more(
        self, mark: host_wait.Mark, started: float, timeout_s: float, granted: float
    ) -> float:
        """How much longer than ``timeout_s`` plus the ``granted`` extension a call begun at
        ``started`` may take for the host's load (``host_wait.extension_s``), never past
        ``MAX_WALL_FACTOR`` backstops in all. Raises ``ChannelTimeout`` when it may not (the
        agent's own time is up) and ``PlatformError`` when it reached that bound starved (the
        host gave the agent too little of a CPU to use its time: ``host_wait.starved``)."""
        now = host_wait.thread_times(self._agent_threads())
        bound = (host_wait.MAX_WALL_FACTOR - 1) * timeout_s
        if granted >= bound - 0.001 and host_wait.starved(mark, now, timeout_s):
            waited = time.perf_counter() - started
            self._die()
            raise PlatformError(
                f"this machine was too busy to run the agent: in {waited:.1f} s its threads "
                f"ran {host_wait.summary(mark, now)['ran_ms'] / 1000:.2f} s on a CPU and waited "
                "for one the rest of the time; the match is not rated and nobody forfeits "
                "(operators: fewer matches per core, docs/operations.md)"
            )
        more = min(host_wait.extension_s(mark, now, timeout_s), bound) - granted
        if more <= 0.001:
            raise self._timed_out(started, mark)
        return more

    def _timed_out(self, started: float, mark: host_wait.Mark | None) -> ChannelTimeout:
        """The timeout of an exchange begun at ``started``: its time (the model's left out),
        and what the host-wait extension saw of the agent's threads since ``mark``."""
        seen = None
        if mark is not None:
            seen = host_wait.summary(mark, host_wait.thread_times(self._agent_threads()))
        return ChannelTimeout(time.perf_counter() - started - self._model_s, host_wait=seen)

    @contextlib.contextmanager
    def _frozen_meanwhile(self) -> Iterator[None]:
        """The agent frozen while the model works (where the limits freeze idle agents).

        The freeze is requested and not waited for (its thread waits for this very answer, so
        only its other threads could still run, for the kernel's moment of freezing): waiting
        for the confirmation cost each model call several milliseconds on a busy host."""
        self._freeze_later()
        try:
            yield
        finally:
            self._thaw()

    def _serve_model(self, message: dict[str, Any], deadline: float) -> float:
        """Answer one model line with the agent frozen; return the seconds it took."""
        assert self.gateway is not None
        began = time.perf_counter()
        status, body = self.gateway.handle(message, while_waiting=self._frozen_meanwhile)
        answer: dict[str, Any] = {
            "type": "model_reply",
            "seq": message.get("seq"),
            "status": status,
            "body": body,
        }
        refusal = self.gateway.refusal_for_rest_of_call()
        if refusal is not None:
            answer["refuse_rest"] = {"status": refusal[0], "body": refusal[1]}
        data = json.dumps(answer, allow_nan=False).encode() + b"\n"
        spent = time.perf_counter() - began
        # The answer is written on the call's time extended by this very call's model time.
        self._send(data, deadline + spent)
        return time.perf_counter() - began

    def _ping(self, timeout_s: float) -> None:
        """Ask an idle harness (no agent yet) whether it listens; ``PlatformError`` if not."""
        try:
            reply, _ = self._exchange({"type": "ping"}, timeout_s)
        except (ChannelTimeout, ChannelClosed, ReplyTooLarge, _BadReply) as exc:
            raise PlatformError(
                f"the sandbox's harness did not answer a ping ({type(exc).__name__}: {exc}); "
                "check the sandbox image (make image)"
            ) from None
        if not reply["ok"]:
            error = _call_error(reply.get("error"))
            raise PlatformError(
                f"the sandbox's harness refused a ping ({error.type}: {error.message}): the "
                f"sandbox image is older than this controller's protocol {PROTOCOL_VERSION}; "
                "run `make image`"
            )

    def _supervisor_request(self, kind: str, timeout_s: float) -> dict[str, Any]:
        """One request to a supervised container's supervisor (``harness.Supervisor``): its
        ``result``; ``PlatformError`` when it does not answer as it should."""
        try:
            reply, _ = self._exchange({"type": kind}, timeout_s)
        except (ChannelTimeout, ChannelClosed, ReplyTooLarge, _BadReply) as exc:
            raise PlatformError(
                f"the sandbox's supervisor did not answer {kind!r} ({type(exc).__name__}: {exc}); "
                "an image built from an older harness does not: check the sandbox image "
                "(make image)"
            ) from None
        result = reply.get("result")
        if not reply["ok"] or not isinstance(result, dict):
            error = _call_error(reply.get("error"))
            raise PlatformError(
                f"the sandbox's supervisor refused {kind!r} ({error.type}: {error.message}); "
                "check the sandbox image (make image)"
            )
        return result

    def _read_reset_report(self, spawn_id: int, timeout_s: float) -> dict[str, Any] | None:
        """After ``exit``: the supervisor's report on the sweep of the match that ``spawn_id``
        started, or ``None`` when anything else came (a line the agent wrote, nothing in time,
        the end of the channel): the container is then not to be trusted again."""
        deadline = time.perf_counter() + timeout_s
        try:
            line = self._read_line(deadline)
            report = _parse_reply(line, spawn_id, self.limits.max_reply_depth, reset_report=True)
        except (ChannelTimeout, ChannelClosed, ReplyTooLarge, _BadReply):
            return None
        if report.get("type") != "reset" or self._buffer:
            return None
        return report

    def _read_line(self, deadline: float) -> bytes:
        cap = self.limits.max_reply_bytes
        searched = 0
        while True:
            newline = self._buffer.find(b"\n", searched)
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[: newline + 1]
                if len(line) > cap:
                    raise ReplyTooLarge(f"a reply of {len(line)} bytes, over the {cap} byte limit")
                return line
            searched = len(self._buffer)
            if len(self._buffer) > cap:
                raise ReplyTooLarge(f"a reply line over the {cap} byte limit")
            chunk = self._receive(deadline)
            if not chunk:
                raise ChannelClosed()
            self._buffer += chunk

    def _stdout(self, reply: Mapping[str, Any]) -> str:
        """Re-apply the caps to what the harness says the agent printed (never trust it)."""
        text = reply.get("stdout", "")
        if not isinstance(text, str):
            return ""
        # The harness already cut the middle (start and end kept, the marker between) within the
        # same budget, so its text passes as it is; a longer one is cut again here.
        kept, self._stdout_used = cap_stdout(text, self._stdout_used)
        return kept


class _BadReply(Exception):
    """A line from the harness that is not a valid reply to the request in flight."""


def _reject_constant(value: str) -> Any:
    raise ValueError(f"{value} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is not a finite number")
    return value


def _check_value(value: Any, max_depth: int) -> None:
    """``ValueError`` when ``value`` nests too deep or holds a lone surrogate or a non-finite
    number. Iterative: the depth of what is checked can never exhaust the stack."""
    stack: deque[tuple[Any, int]] = deque([(value, 0)])
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError("a text holds a lone surrogate (not valid Unicode)") from None
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise ValueError("a number is not finite")
        elif isinstance(item, dict | list):
            if depth > max_depth:
                raise ValueError(f"lists and objects nest deeper than {max_depth} levels")
            if isinstance(item, dict):
                stack.extend((key, depth + 1) for key in item)
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)


def _parse_reply(
    line: bytes,
    request_id: int,
    max_depth: int = 64,
    *,
    model_lines: bool = False,
    reset_report: bool = False,
) -> dict[str, Any]:
    """Validate one reply line before anything in it reaches a game.

    ``max_depth`` bounds the nesting inside the reply object (the result's own nesting). With
    ``model_lines`` a model request (``"type": "model"``) for this request is accepted too and
    returned as it is (``ModelGateway.handle`` checks its fields). With ``reset_report`` the
    line expected is a supervisor's report (``"type": "reset"``), checked as a reply.
    """
    try:
        reply = json.loads(line, parse_constant=_reject_constant, parse_float=_finite_float)
    except (ValueError, RecursionError) as exc:
        raise _BadReply(f"a line that is not JSON ({_preview(line)}): {exc}") from None
    try:
        _check_value(reply, max_depth)
    except ValueError as exc:
        raise _BadReply(f"a reply that is not acceptable JSON: {exc}") from None
    if not isinstance(reply, dict):
        raise _BadReply(f"a reply that is not an object ({_preview(line)})")
    if reply.get("id") != request_id or isinstance(reply.get("id"), bool):
        raise _BadReply(f"a reply with id {reply.get('id')!r} where {request_id} was expected")
    if "type" in reply:
        if model_lines and reply["type"] == "model":
            return reply
        if not (reset_report and reply["type"] == "reset"):
            raise _BadReply(
                f"a line of type {str(reply['type'])[:40]!r} where a reply was expected"
            )
    if not isinstance(reply.get("ok"), bool):
        raise _BadReply("a reply without a boolean 'ok'")
    if not reply["ok"] and not isinstance(reply.get("error"), dict):
        raise _BadReply("a failed reply without an 'error' object")
    for key in ("elapsed_ms", "cpu_ms"):
        if key not in reply and key == "cpu_ms":
            continue
        value = reply.get(key)
        if (
            not isinstance(value, int | float)
            or isinstance(value, bool)
            or not math.isfinite(value)
            or value < 0
        ):
            raise _BadReply(f"a reply whose {key!r} is not a number of milliseconds")
    return reply


def _preview(line: bytes) -> str:
    text = line[:80].decode("utf-8", errors="replace")
    return repr(text) + ("…" if len(line) > 80 else "")


def _call_error(raw: Any) -> CallError:
    """A ``CallError`` from the harness's error object, every field coerced to text."""
    if not isinstance(raw, dict):
        return CallError("ProtocolError", "the agent's reply carried no error description")

    def text(key: str, limit: int) -> str:
        value = raw.get(key, "")
        return (value if isinstance(value, str) else repr(value))[:limit]

    return CallError(text("type", 200) or "Error", text("message", 4000), text("traceback", 16000))


def platform_failure(what: str, exc: BaseException) -> PlatformError:
    """A ``PlatformError`` for a backend operation that failed, naming the operation."""
    return PlatformError(f"the sandbox could not {what}: {type(exc).__name__}: {exc}")

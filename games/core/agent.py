"""``AgentHandle``: how the referee talks to one agent, wherever it runs.

The referee only ever sees this protocol. ``InProcessAgentHandle`` (here) runs a trusted Python
``Agent`` object in this process, for house bots and tests; the ``sandbox`` package adds the docker
and process backends for uploaded code. ``games`` never imports ``sandbox``.

A handle's life: ``start()`` once (load the source, instantiate ``Agent``), then ``call()`` for each
lifecycle method, then ``close()`` whatever happened. ``call()`` and ``start()`` take a hard
backstop: past it the handle stops waiting and raises (the referee passes the budget plus a
grace). The time charged to the agent is the window reported in ``CallResult.elapsed_ms`` (and
returned by ``start()``): its own method's time, never the platform's; the referee compares it
with the budget.

A handle whose agent is the platform's own code (a house bot) says so with a true
``platform_seat`` attribute (optional: a handle without it is an entrant's). Its failures are the
platform's: a house bot that overruns its budget, crashes or plays illegally ends the match as a
platform error, never as a forfeit that hands its opponent a win.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from games.core.errors import AgentCrash, AgentInitError, AgentTimeout

#: The lifecycle methods of an agent, in the order a match calls them.
LIFECYCLE_METHODS = ("on_match_start", "on_round_start", "on_turn", "on_round_end", "on_match_end")

#: Captured stdout is cut at these sizes: the start and the end are kept (the last lines before a
#: failure are at the end), the middle is replaced by ``STDOUT_CUT_MARK``.
STDOUT_CAP_PER_CALL_BYTES = 8 * 1024
STDOUT_CAP_PER_MATCH_BYTES = 256 * 1024
STDOUT_CUT_MARK = (
    "\n[... output cut here: the limit is 8 KiB a call and 256 KiB a match; its start and its "
    "end are kept ...]\n"
)


@dataclass(frozen=True)
class CallError:
    """An exception raised inside the agent, as the agent's owner should read it."""

    type: str
    message: str
    traceback: str = ""

    def describe(self) -> str:
        """One text with the exception and its traceback, for an ``error`` field or a log."""
        head = f"{self.type}: {self.message}" if self.message else self.type
        return f"{head}\n{self.traceback}".rstrip() if self.traceback else head


@dataclass(frozen=True)
class CallResult:
    """The answer to one lifecycle call.

    ``ok`` is False when the method raised; ``error`` then says what. ``elapsed_ms`` is the
    agent's own time, the figure the referee charges against the budget: for a sandboxed agent the
    window the harness measured around the method (never more than ``wall_ms``), in this process
    the wall time of the call. ``wall_ms`` is what the controller measured from writing the request
    to reading the reply (platform delays included; the backstop applies to it); ``cpu_ms`` the
    CPU time the agent's process used in its window when known; ``freeze`` how the agent is
    frozen between calls (``cgroup-v1``, ``cgroup-v2``, ``pause``) or ``None``.
    """

    ok: bool
    result: Any = None
    error: CallError | None = None
    stdout: str = ""
    elapsed_ms: float = 0.0
    wall_ms: float | None = None
    #: Time a sandboxed agent's model calls took through its gateway within this call (never
    #: charged: it is out of ``elapsed_ms``); 0 without a gateway.
    model_ms: float = 0.0
    cpu_ms: float | None = None
    freeze: str | None = None


@runtime_checkable
class AgentHandle(Protocol):
    """One agent seated in one match. Implementations: in-process, process, docker."""

    @property
    def name(self) -> str:
        """A display name for logs and results."""
        ...

    def start(self, *, game_id: str, timeout_s: float) -> float | None:
        """Load the agent and instantiate ``Agent``; return the agent's own loading time in s.

        Raises ``AgentInitError`` when it cannot (including a ``GAME`` other than ``game_id`` or
        not being loaded within the backstop ``timeout_s``), ``PlatformError`` when the backend
        itself fails. ``None`` means the handle did not measure it (the caller's clock counts).
        """
        ...

    def call(self, method: str, payload: Mapping[str, Any], timeout_s: float) -> CallResult:
        """Call one lifecycle method with a JSON payload and wait at most ``timeout_s``.

        Returns the result (or the exception the agent raised, as ``CallError``) with the agent's
        own time in ``elapsed_ms``. Raises ``AgentTimeout`` past the backstop ``timeout_s`` and
        ``AgentCrash`` when the agent is gone or broke the protocol. A missing optional hook is
        not an error: it returns ``ok`` with ``None``.
        """
        ...

    def close(self) -> None:
        """Stop the agent and free everything it used. Safe to call twice or after a failure."""
        ...


def json_roundtrip(value: Any) -> Any:
    """``value`` as it would arrive over a JSON channel; ``TypeError``/``ValueError`` if it can't.

    The in-process handle uses this so that a reply a sandboxed agent could not send (a set, NaN,
    a cycle) fails the same way in every backend.
    """
    return json.loads(json.dumps(value, allow_nan=False))


def cap_stdout(text: str, used_bytes: int) -> tuple[str, int]:
    """Cut one call's captured output to the per-call and per-match caps.

    Returns the text to keep and the match's new running total in bytes.
    """
    budget = max(0, min(STDOUT_CAP_PER_CALL_BYTES, STDOUT_CAP_PER_MATCH_BYTES - used_bytes))
    raw = text.encode("utf-8", errors="replace")
    if len(raw) <= budget:
        return text, used_bytes + len(raw)
    return cut_middle(raw, budget), used_bytes + budget


def cut_middle(raw: bytes, budget: int) -> str:
    """``raw`` as text of at most ``budget`` bytes (when the budget holds the marker): its first
    and last bytes with ``STDOUT_CUT_MARK`` between them; a character split by a cut is dropped."""
    room = max(0, budget - len(STDOUT_CUT_MARK.encode()))
    head_bytes = room // 2
    tail_bytes = room - head_bytes
    head = raw[:head_bytes].decode("utf-8", errors="ignore")
    tail = raw[len(raw) - tail_bytes :].decode("utf-8", errors="ignore") if tail_bytes else ""
    return head + STDOUT_CUT_MARK + tail


@dataclass
class InProcessAgentHandle:
    """Runs a trusted ``Agent`` in this process: house bots, tests, ``arena simulate``.

    Not a sandbox: the agent shares this interpreter. A call that overruns its budget is detected
    after it returns (trusted code does return), so the referee's timeout path is the same.
    ``platform_seat`` marks the agent as the platform's own (a house bot seated by the platform):
    the referee then blames the platform for its failures (see the module's docstring).
    """

    factory: Callable[[], Any]
    display_name: str = "agent"
    platform_seat: bool = False
    agent: Any = field(default=None, init=False)
    _stdout_used: int = field(default=0, init=False)

    @classmethod
    def from_source(cls, source: str, name: str = "agent.py") -> InProcessAgentHandle:
        """A handle that compiles ``source`` as ``agent.py`` when started (trusted code only)."""

        def factory() -> Any:
            namespace: dict[str, Any] = {"__name__": "agent"}
            exec(compile(source, "agent.py", "exec"), namespace)  # noqa: S102 - trusted code only
            agent_class = namespace.get("Agent")
            if not isinstance(agent_class, type):
                raise AgentInitError("agent.py defines no class named Agent")
            return agent_class()

        return cls(factory=factory, display_name=name)

    @property
    def name(self) -> str:
        """The display name given at construction."""
        return self.display_name

    def start(self, *, game_id: str, timeout_s: float) -> float | None:
        """Instantiate the agent; check its ``GAME`` when it declares one; return the time."""
        started = time.perf_counter()
        buffer = io.StringIO()
        try:
            with contextlib.redirect_stdout(buffer):
                self.agent = self.factory()
        except AgentInitError:
            raise
        except Exception as exc:  # the agent's own code failed: report it to its owner
            raise AgentInitError(
                f"creating the Agent raised {type(exc).__name__}: {exc}", traceback.format_exc()
            ) from exc
        declared = getattr(self.agent, "GAME", game_id)
        if declared != game_id:
            raise AgentInitError(f"Agent.GAME is {declared!r} but this match plays {game_id!r}")
        if not callable(getattr(self.agent, "on_turn", None)):
            raise AgentInitError("Agent has no on_turn method")
        elapsed = time.perf_counter() - started
        if elapsed > timeout_s:
            raise AgentInitError(f"loading took {elapsed:.2f} s, over the {timeout_s:.0f} s budget")
        return elapsed

    def call(self, method: str, payload: Mapping[str, Any], timeout_s: float) -> CallResult:
        """Call ``method`` on the agent with a private copy of ``payload``."""
        if self.agent is None:
            raise AgentCrash("the agent was not started")
        hook = getattr(self.agent, method, None)
        if hook is None:
            return CallResult(ok=True)
        buffer = io.StringIO()
        started = time.perf_counter()
        ok, result, error = True, None, None
        try:
            with contextlib.redirect_stdout(buffer):
                raw = hook(copy.deepcopy(dict(payload)))
        except Exception as exc:  # the agent's own exception: the referee decides what it costs
            ok, error = (
                False,
                CallError(type(exc).__name__, str(exc), traceback.format_exc(limit=8)),
            )
        else:
            try:
                result = json_roundtrip(raw)
            except (TypeError, ValueError, RecursionError) as exc:
                ok = False
                error = CallError("InvalidReply", f"the reply could not be sent as JSON: {exc}")
        elapsed = time.perf_counter() - started
        if elapsed > timeout_s:
            raise AgentTimeout(method, elapsed, timeout_s)
        stdout, self._stdout_used = cap_stdout(buffer.getvalue(), self._stdout_used)
        return CallResult(
            ok=ok,
            result=result if ok else None,
            error=error,
            stdout=stdout,
            elapsed_ms=elapsed * 1000,
            wall_ms=elapsed * 1000,
        )

    def close(self) -> None:
        """Drop the agent object."""
        self.agent = None


class DeclaredGameHandle:
    """An agent uploaded under a game's former id (``Game.former_ids``): its source still says
    ``GAME = "<former id>"``, so it is started under that id and otherwise played unchanged.
    Everything else goes to the handle it wraps."""

    def __init__(self, inner: AgentHandle, declared_game: str) -> None:
        self.inner = inner
        self.declared_game = declared_game

    @property
    def name(self) -> str:
        """The wrapped agent's name."""
        return self.inner.name

    def start(self, *, game_id: str, timeout_s: float) -> float | None:
        """Start the agent checking ``GAME`` against the id it was uploaded under."""
        return self.inner.start(game_id=self.declared_game, timeout_s=timeout_s)

    def call(self, method: str, payload: Mapping[str, Any], timeout_s: float) -> CallResult:
        """The wrapped handle's call."""
        return self.inner.call(method, payload, timeout_s)

    def close(self) -> None:
        """Close the wrapped handle."""
        self.inner.close()

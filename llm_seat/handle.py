"""``LlmSeat``: the ``AgentHandle`` of a language-model entrant (docs/llm-seats.md).

It runs in the worker's process and never executes anything a model returns. The referee binds
it to the game (``bind_match``) and asks for ``on_turn`` as it asks any seat; the other
lifecycle hooks answer at once without a call. Per turn:

* the prompt is the game's adapter over the seat's own view; with JSON output on, the adapter's
  output schema (narrowed to the legal values where every action is concrete) is the requested
  response format;
* the reply goes back to the referee as the JSON object found in it (or its text when there is
  none): the referee's ``ActionParser`` (random fallback off) decides, and a refusal comes back
  as a re-ask with ``error`` and ``attempt``, which this seat turns into a message quoting the
  reason with the fresh state;
* time: timed matches give the whole move (first ask and re-asks) ``move_budget_s`` of model
  latency; each request is cut at what is left, and running out is a timeout. Untimed matches cap
  each call at ``untimed_call_cap_s``. Waiting for a concurrency or rate slot (``SeatHooks.slot``)
  and back-off between provider retries are never charged;
* a provider failure (429, 5xx, refused connection, a malformed answer) is retried with bounded
  back-off, then raised as ``PlatformError`` (the match is re-queued unrated). In a validation
  match (``policy.validation``) it is an ``AgentCrash`` with the reason instead, so a wrong key or
  a dead endpoint rejects the entrant with that reason rather than leaving it pending.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from games.core import (
    AgentCrash,
    AgentInitError,
    AgentTimeout,
    CallError,
    CallResult,
    Game,
    PlatformError,
    StateAdapter,
    get_game_spec,
)
from games.core.action_parser import ActionParser
from games.core.agent import cap_stdout
from llm_seat.client import (
    CallTimedOut,
    Completion,
    Endpoint,
    ModelClient,
    ProviderError,
    ReplyTooLarge,
    Sampling,
)
from llm_seat.prompt import messages_for, narrowed_schema, state_prompt, system_prompt


@dataclass(frozen=True)
class SeatPolicy:
    """How one model seat is timed, prompted and retried."""

    #: Timed matches: model latency per move, re-asks included (seed 003: 5 s).
    move_budget_s: float = 5.0
    #: Untimed matches: no move clock, but no single call may run longer than this.
    untimed_call_cap_s: float = 300.0
    json_output: bool = True
    system_prompt_addition: str = ""
    #: Tries of one call when the provider fails (429, 5xx, connection), with back-off between.
    provider_attempts: int = 4
    backoff_s: float = 0.5
    backoff_max_s: float = 8.0
    #: Attempts the referee allows per move (shown to the model in a re-ask).
    attempts_per_move: int = 4
    #: A self-play validation: persistent provider failures reject the entrant (``AgentCrash``).
    validation: bool = False
    max_response_bytes: int = 1 << 20


@dataclass(frozen=True)
class CallRecord:
    """One model call as the ledger stores it (the prompt included: it is the owner's)."""

    turn: Any
    round: int
    attempt: int
    messages: list[dict[str, str]]
    outcome: str  # answered | timeout | too_large | provider_error
    text: str = ""
    reasoning: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float = 0.0
    request_id: str = ""
    error: str = ""


class SeatHooks(Protocol):
    """What the host (the worker, the command line) provides around each call."""

    def slot(self) -> contextlib.AbstractContextManager[None]:
        """Wait for the model's concurrency and rate slot (never charged to the move); raise
        ``PlatformError`` when none comes in a bounded time."""
        ...

    def before_call(self) -> None:
        """Raise ``PlatformError`` when a cost cap leaves no budget for another call."""
        ...

    def record(self, call: CallRecord) -> None:
        """Store one call in the ledger (must not raise)."""
        ...


class NoHooks:
    """No limits, no ledger: the command line and unit tests."""

    @contextlib.contextmanager
    def _slot(self) -> Iterator[None]:
        yield

    def slot(self) -> contextlib.AbstractContextManager[None]:
        """No slot to wait for."""
        return self._slot()

    def before_call(self) -> None:
        """No cap."""

    def record(self, call: CallRecord) -> None:
        """Nothing kept."""


@dataclass
class LlmSeat:
    """One model seated in one match (see the module's docstring)."""

    endpoint: Endpoint
    sampling: Sampling = field(default_factory=Sampling)
    policy: SeatPolicy = field(default_factory=SeatPolicy)
    hooks: SeatHooks = field(default_factory=NoHooks)
    display_name: str = "model"
    sleep: Any = time.sleep
    _game: Game | None = field(default=None, init=False)
    _player_id: str = field(default="", init=False)
    _timed: bool = field(default=True, init=False)
    _adapter: StateAdapter | None = field(default=None, init=False)
    _parser: ActionParser | None = field(default=None, init=False)
    _client: ModelClient | None = field(default=None, init=False)
    _used_s: float = field(default=0.0, init=False)
    _last_text: str = field(default="", init=False)
    _stdout_used: int = field(default=0, init=False)

    @property
    def name(self) -> str:
        """The display name."""
        return self.display_name

    # --- the referee's hooks for a seat with its own clock -------------------------------------

    def bind_match(self, *, game: Game, player_id: str, timed: bool) -> None:
        """The game this seat plays (read only) and its player id."""
        self._game, self._player_id, self._timed = game, player_id, timed

    def seat_budget_s(self, timed: bool) -> float:
        """The referee's budget for one call: the move budget, or the untimed cap."""
        return self.policy.move_budget_s if timed else self.policy.untimed_call_cap_s

    # --- AgentHandle --------------------------------------------------------------------------

    def start(self, *, game_id: str, timeout_s: float) -> float | None:
        """Prepare the adapter and the client; no call is made."""
        if self._game is None:
            raise AgentInitError("a model seat plays only through the referee (bind_match)")
        spec = get_game_spec(game_id)
        self._adapter = spec.state_adapter_class()
        self._parser = spec.action_parser_class(fallback_to_random=False)
        self._client = ModelClient(self.endpoint, max_response_bytes=self.policy.max_response_bytes)
        return 0.0

    def call(self, method: str, payload: Mapping[str, Any], timeout_s: float) -> CallResult:
        """``on_turn``: ask the model; any other hook: nothing to do."""
        if method != "on_turn":
            return CallResult(ok=True)
        if self._game is None or self._adapter is None or self._client is None:
            raise AgentCrash("the model seat was not started")
        attempt = payload.get("attempt", 0)
        attempt = attempt if isinstance(attempt, int) and attempt >= 0 else 0
        if attempt == 0:
            self._used_s, self._last_text = 0.0, ""
        reason = payload.get("error") if attempt else None
        game = self._game
        role, prompt, private = state_prompt(self._adapter, game, self._player_id)
        public = game.get_public_state()
        system = system_prompt(
            self._adapter, role, public, private, self.policy.system_prompt_addition
        )
        messages = messages_for(
            system=system,
            prompt=prompt,
            refused_reply=self._last_text if reason else None,
            reason=str(reason) if reason else None,
            attempt=attempt,
            attempts=self.policy.attempts_per_move,
        )
        schema = None
        if self.policy.json_output:
            schema = narrowed_schema(
                self._adapter.get_output_schema(), game.get_available_actions()
            )
        budget = self.seat_budget_s(self._timed)
        remaining = budget - self._used_s if self._timed else budget
        if remaining <= 0:
            raise AgentTimeout(method, self._used_s, budget)
        turn, round_no = public.get("turn"), game.get_round()
        completion = self._ask(messages, schema, remaining, turn, round_no, attempt)
        if isinstance(completion, CallResult):
            return completion
        self._last_text = completion.text
        reply = self._reply(completion.text)
        shown = completion.text
        if completion.reasoning:
            shown = f"[reasoning]\n{completion.reasoning}\n[answer]\n{completion.text}"
        stdout, self._stdout_used = cap_stdout(shown, self._stdout_used)
        return CallResult(
            ok=True,
            result=reply,
            stdout=stdout,
            elapsed_ms=completion.latency_s * 1000,
            wall_ms=completion.latency_s * 1000,
        )

    def close(self) -> None:
        """Close the client's connections."""
        if self._client is not None:
            self._client.close()
            self._client = None

    # --- inside -------------------------------------------------------------------------------

    def _reply(self, text: str) -> Any:
        """The JSON object in the text for the referee's parser, or the text when it has none."""
        assert self._parser is not None
        try:
            found = self._parser.extract_json(text)
        except (RecursionError, ValueError):
            return "(the answer nests too deep to be read)"
        return found if found is not None else text

    def _ask(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any] | None,
        remaining_s: float,
        turn: Any,
        round_no: int,
        attempt: int,
    ) -> Completion | CallResult:
        """One answer, retrying provider failures; a timeout raises, an oversize answer is a
        refused reply (``CallResult`` not ok)."""
        assert self._client is not None
        last: ProviderError | None = None
        pause = self.policy.backoff_s
        for tried in range(self.policy.provider_attempts):
            if tried:
                self.sleep(pause)
                pause = min(pause * 2, self.policy.backoff_max_s)
            self.hooks.before_call()
            base = {"turn": turn, "round": round_no, "attempt": attempt, "messages": messages}
            try:
                with self.hooks.slot():
                    completion = self._client.complete(
                        messages,
                        sampling=self.sampling,
                        timeout_s=remaining_s,
                        response_schema=schema,
                    )
            except CallTimedOut as exc:
                self._used_s += exc.elapsed_s
                self.hooks.record(CallRecord(**base, outcome="timeout", latency_s=exc.elapsed_s))
                raise AgentTimeout(
                    "on_turn", self._used_s, self.seat_budget_s(self._timed)
                ) from None
            except ReplyTooLarge as exc:
                self._used_s += exc.elapsed_s
                self.hooks.record(
                    CallRecord(**base, outcome="too_large", latency_s=exc.elapsed_s, error=str(exc))
                )
                return CallResult(
                    ok=False,
                    error=CallError("ReplyTooLarge", f"{exc}; answer with one short JSON object"),
                    elapsed_ms=exc.elapsed_s * 1000,
                    wall_ms=exc.elapsed_s * 1000,
                )
            except ProviderError as exc:
                self.hooks.record(CallRecord(**base, outcome="provider_error", error=str(exc)))
                last = exc
                if not exc.transient:
                    break
                continue
            self._used_s += completion.latency_s
            self.hooks.record(
                CallRecord(
                    **base,
                    outcome="answered",
                    text=completion.text,
                    reasoning=completion.reasoning,
                    prompt_tokens=completion.prompt_tokens,
                    completion_tokens=completion.completion_tokens,
                    reasoning_tokens=completion.reasoning_tokens,
                    latency_s=completion.latency_s,
                    cost_usd=completion.cost_usd,
                    request_id=completion.request_id,
                )
            )
            return completion
        assert last is not None
        tries = f"after {tried + 1} tries" if last.transient else "(not retried)"
        message = f"model {self.endpoint.name}: {last} {tries}"
        if self.policy.validation:
            raise AgentCrash(message)
        raise PlatformError(message)

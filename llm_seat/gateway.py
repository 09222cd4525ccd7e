"""A code agent's model calls through the sandbox's gateway, made with ``ModelClient``.

``ClientBackend`` is the ``ModelBackend`` a host gives ``sandbox.ModelGateway``
(``sandbox/gateway.py``): the platform's worker with the platform's metering as hooks (the model's
slot, the payer's budget, a ledger row a call: ``arena.llm.metering``), ``arena play`` with none.
It only ever answers with an HTTP status and an OpenAI-shaped body:

* 200 and a ``chat.completion`` object (the text, its usage, its reasoning when the provider
  returns it apart);
* 429 ``insufficient_quota`` when the hooks say the payer's budget cannot hold the call
  (``BudgetSpent``): a call is priced at its most before it is made (``max_cost_usd``: the
  prompt's bound in tokens and ``max_tokens``, at the model's prices) and the hooks hold that
  much of every budget while it is in flight (``GatewayHooks.reserve``), then settle it to the
  real cost, so calls in flight at once never spend past a budget;
* 504 ``model_timeout`` when the model did not answer within the time the gateway gave the call;
* 502 when the provider refused the request or sent an unreadable or oversized answer, 503 when
  it kept failing (429, 5xx, unreachable) through ``attempts`` tries; the agent chose to depend
  on the model, the match goes on.

Like the rest of ``llm_seat`` it imports neither the sandbox nor Django.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from llm_seat.client import (
    CallTimedOut,
    Completion,
    Endpoint,
    ModelClient,
    ProviderError,
    ReplyTooLarge,
    Sampling,
)
from llm_seat.handle import CallRecord, NoHooks, SeatHooks

logger = logging.getLogger(__name__)


class BudgetSpent(Exception):
    """Raised by a hook's ``before_call``: the payer's budget leaves nothing for this call; the
    text says which budget and where its owner sets it."""


#: What a reservation yields: records the call in the ledger and settles its real cost.
Settle = Callable[[CallRecord], None]


@runtime_checkable
class GatewayHooks(Protocol):
    """What a host that meters an agent's calls provides around each one (the platform's
    ``arena.llm.metering.AgentMeter``). A host with only ``SeatHooks`` (``arena play``, the
    benches) is asked ``before_call`` and ``record`` instead."""

    def slot(self) -> contextlib.AbstractContextManager[None]:
        """Wait for the model's concurrency and rate slot (never charged to a clock)."""
        ...

    def reserve(self, max_cost_usd: float) -> contextlib.AbstractContextManager[Settle]:
        """Hold ``max_cost_usd`` of every budget that covers the call while it is in flight,
        or raise ``BudgetSpent`` when one cannot hold it. Yields the function that records the
        call and settles its real cost; leaving without calling it releases the hold."""
        ...


#: Tokens a message may cost beyond its text in any chat template (role markers, separators),
#: and the reply's priming: generous, so the bound holds for every provider's template.
_TOKENS_PER_MESSAGE = 32
_TOKENS_PER_PROMPT = 64


def prompt_tokens_bound(messages: Sequence[Mapping[str, str]]) -> int:
    """The most tokens ``messages`` can count as a prompt: no tokenizer makes more tokens of a
    text than its UTF-8 bytes (byte-level BPE falls back to one token a byte)."""
    total = _TOKENS_PER_PROMPT
    for message in messages:
        total += _TOKENS_PER_MESSAGE
        for value in message.values():
            total += len(str(value).encode("utf-8", errors="replace"))
    return total


def max_cost_usd(
    endpoint: Endpoint, messages: Sequence[Mapping[str, str]], max_tokens: int
) -> float:
    """The most one call may cost: the prompt's bound and ``max_tokens`` at the model's prices."""
    return endpoint.cost_usd(prompt_tokens_bound(messages), max_tokens)


@contextlib.contextmanager
def _reserved(hooks: SeatHooks | GatewayHooks, cost: float) -> Iterator[Settle]:
    if isinstance(hooks, GatewayHooks):
        with hooks.reserve(cost) as settle:
            yield settle
        return
    hooks.before_call()
    yield hooks.record


class GatewayRequest(Protocol):
    """What the backend reads of a checked chat request (``sandbox.gateway.ChatRequest``)."""

    @property
    def model(self) -> str: ...
    @property
    def messages(self) -> Sequence[Mapping[str, str]]: ...
    @property
    def max_tokens(self) -> int | None: ...
    @property
    def temperature(self) -> float | None: ...
    @property
    def top_p(self) -> float | None: ...


class GatewayCallContext(Protocol):
    """Where in the match the call is made (``sandbox.gateway.CallContext``)."""

    @property
    def round(self) -> int: ...
    @property
    def turn(self) -> int | None: ...


@dataclass
class GatewayModel:
    """One model an agent may call: its endpoint, its token limits and its host's hooks."""

    name: str
    endpoint: Endpoint
    default_max_tokens: int = 256
    max_tokens_cap: int = 1024
    hooks: SeatHooks | GatewayHooks = field(default_factory=NoHooks)


def error(status: int, message: str, kind: str, code: str) -> tuple[int, dict[str, Any]]:
    """An OpenAI-shaped error answer."""
    return status, {"error": {"message": message, "type": kind, "code": code, "param": None}}


class ClientBackend:
    """Answers an agent's chat requests with ``ModelClient``, retrying provider failures."""

    def __init__(
        self,
        models: Sequence[GatewayModel],
        *,
        attempts: int = 2,
        backoff_s: float = 0.25,
        max_response_bytes: int = 1 << 20,
    ) -> None:
        self.models = {m.name: m for m in models}
        self.attempts = max(1, attempts)
        self.backoff_s = backoff_s
        self.max_response_bytes = max_response_bytes
        self._clients: dict[str, ModelClient] = {}
        self._ids = itertools.count(1)
        # Made now, before the match: a client's first construction (the SDK, the TLS context)
        # would otherwise eat into the first call's model time.
        for model in models:
            self._client(model)

    def model_names(self) -> list[str]:
        """The names the agent may call, the first one the default."""
        return list(self.models)

    def close(self) -> None:
        """Close every client's connections."""
        for client in self._clients.values():
            client.close()
        self._clients.clear()

    def _client(self, model: GatewayModel) -> ModelClient:
        client = self._clients.get(model.name)
        if client is None:
            client = ModelClient(model.endpoint, max_response_bytes=self.max_response_bytes)
            self._clients[model.name] = client
        return client

    def complete(
        self, request: GatewayRequest, *, timeout_s: float, context: GatewayCallContext
    ) -> tuple[int, dict[str, Any]]:
        """One agent's chat request (see the module's docstring for the answers)."""
        model = self.models.get(request.model)
        if model is None:
            return error(
                403,
                f"model {request.model!r} is not allowed",
                "permission_denied_error",
                "model_not_allowed",
            )
        wanted = request.max_tokens or model.default_max_tokens
        sampling = Sampling(
            max_tokens=max(1, min(wanted, model.max_tokens_cap)),
            temperature=request.temperature,
            top_p=request.top_p,
        )
        messages = [dict(m) for m in request.messages]
        cost = max_cost_usd(model.endpoint, messages, sampling.max_tokens)
        deadline = time.monotonic() + timeout_s
        last: ProviderError | None = None
        for tried in range(self.attempts):
            if tried:
                time.sleep(
                    min(self.backoff_s * 2 ** (tried - 1), max(0.0, deadline - time.monotonic()))
                )
            if deadline - time.monotonic() <= 0:
                break
            base: dict[str, Any] = {
                "turn": context.turn,
                "round": context.round,
                "attempt": tried,
                "messages": messages,
            }
            try:
                with _reserved(model.hooks, cost) as settle:
                    answer = self._attempt(model, messages, sampling, deadline, base, settle)
                    if answer is _TIMED_OUT:
                        answer = _timeout(timeout_s)
            except BudgetSpent as spent:
                return error(429, str(spent), "insufficient_quota", "insufficient_quota")
            if answer is None:  # no model time left
                break
            if isinstance(answer, ProviderError):
                last = answer
                continue
            return answer
        if last is None:
            return _timeout(timeout_s)
        return error(
            503,
            f"the model's provider failed after {self.attempts} tries: {last}",
            "api_error",
            "provider_unavailable",
        )

    def _attempt(
        self,
        model: GatewayModel,
        messages: list[dict[str, str]],
        sampling: Sampling,
        deadline: float,
        base: dict[str, Any],
        settle: Settle,
    ) -> tuple[int, dict[str, Any]] | ProviderError | None:
        """One try within a reservation: the answer to give (``_TIMED_OUT``: the caller's 504,
        which names the call's whole model time), a transient ``ProviderError`` to try again
        after, or ``None`` when no model time is left."""
        try:
            with model.hooks.slot():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                completion = self._client(model).complete(
                    messages, sampling=sampling, timeout_s=remaining
                )
        except CallTimedOut as exc:
            settle(CallRecord(**base, outcome="timeout", latency_s=exc.elapsed_s))
            return _TIMED_OUT
        except ReplyTooLarge as exc:
            settle(CallRecord(**base, outcome="too_large", latency_s=exc.elapsed_s, error=str(exc)))
            return error(502, f"the model's answer was too large ({exc})", "api_error", "too_large")
        except ProviderError as exc:
            settle(CallRecord(**base, outcome="provider_error", error=str(exc)))
            if exc.transient:
                return exc
            return error(
                502,
                f"the model's provider refused the call: {exc}",
                "api_error",
                "provider_refused",
            )
        except BudgetSpent as spent:
            return error(429, str(spent), "insufficient_quota", "insufficient_quota")
        except Exception as exc:  # the slot itself failed (no slot in a bounded time)
            logger.warning("model %s: no call slot: %s", model.name, exc)
            return error(503, f"the model {model.name} is busy: {exc}", "api_error", "model_busy")
        settle(_answered(base, completion))
        return 200, self._body(model.name, completion)

    def _body(self, name: str, completion: Completion) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": completion.text}
        if completion.reasoning:
            message["reasoning_content"] = completion.reasoning
        return {
            "id": completion.request_id or f"chatcmpl-arena-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": name,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": completion.finish_reason or "stop",
                }
            ],
            "usage": {
                "prompt_tokens": completion.prompt_tokens,
                "completion_tokens": completion.completion_tokens,
                "total_tokens": completion.prompt_tokens + completion.completion_tokens,
            },
        }


#: ``_attempt``'s answer when the model ran past the time the call had.
_TIMED_OUT: tuple[int, dict[str, Any]] = (504, {})


def _timeout(timeout_s: float) -> tuple[int, dict[str, Any]]:
    return error(
        504,
        f"the model did not answer within the {timeout_s:.2f} s of model time left: answer "
        "without it (your own clock did not run meanwhile)",
        "timeout",
        "model_timeout",
    )


def _answered(base: dict[str, Any], completion: Completion) -> CallRecord:
    return CallRecord(
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

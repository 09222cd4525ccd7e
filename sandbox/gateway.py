"""The controller's side of the model gateway: what answers an agent's model requests.

An agent whose handle has a ``ModelGateway`` finds an OpenAI-compatible endpoint on its
sandbox's loopback (``sandbox/harness.py``, ``ModelEndpoint``); each request it makes there
arrives here, during one of its calls, as a model line (``HarnessHandle`` reads it between the
request and the reply). ``ModelGateway.handle`` turns it into an HTTP status and an
OpenAI-shaped JSON body and never raises: everything in the line is hostile data.

Policy lives here, in one place:

* the token: the one this match's gateway gave the agent (``OPENAI_API_KEY``), else 401;
* the request: ``GET /v1/models`` or ``POST /v1/chat/completions`` with a bounded, well-formed
  body (messages of text, no streaming), else 400;
* the model's time: ``ModelAllowance.per_turn_s`` a call of the agent and ``per_match_s`` a
  match; a model call gets what is left and is cut there (504, ``model_timeout``), and with
  nothing left the call is refused at once (504); at most ``calls_per_turn`` calls a turn (429);
* the rest (which models, the budget, the ledger, the provider's failures) is the host's
  ``ModelBackend``: the platform's metered one or ``arena play``'s direct one, both in
  ``llm_seat.gateway``.

The sandbox imports no model client: a host supplies the backend.
"""

from __future__ import annotations

import hmac
import json
import logging
import math
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, Protocol

logger = logging.getLogger(__name__)

#: The roles a chat message may have.
ROLES = frozenset({"system", "developer", "user", "assistant"})
#: Bounds on a chat request, whatever the byte cap let through.
MAX_MESSAGES = 256
MAX_BODY_CHARS = 1024 * 1024
#: How much of a body's JSON may nest (messages in a list in an object, content parts).
MAX_BODY_DEPTH = 8


@dataclass(frozen=True)
class ModelAllowance:
    """How much model time an agent has, apart from its own clock (docs/sandbox.md)."""

    #: Model time within one of the agent's calls (a turn); past it the model call is cut.
    per_turn_s: float = 10.0
    #: Model time within the whole match.
    per_match_s: float = 300.0
    #: Model calls within one of the agent's calls; more get 429 at once.
    calls_per_turn: int = 32

    def __post_init__(self) -> None:
        if not (self.per_turn_s > 0 and self.per_match_s > 0 and self.calls_per_turn > 0):
            raise ValueError("every ModelAllowance figure must be positive")


class GatewayError(Exception):
    """A request the agent receives as an error: HTTP ``status``, OpenAI's error ``kind``."""

    def __init__(self, status: int, message: str, *, kind: str, code: str) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.code = code

    def body(self) -> dict[str, Any]:
        """OpenAI's error shape: the SDK raises the matching ``APIStatusError`` from it."""
        return {
            "error": {"message": str(self), "type": self.kind, "code": self.code, "param": None}
        }


@dataclass(frozen=True)
class ChatRequest:
    """A chat completion request, checked: only what the gateway passes on to a model."""

    model: str
    messages: tuple[Mapping[str, str], ...]
    max_tokens: int | None
    temperature: float | None
    top_p: float | None


@dataclass(frozen=True)
class CallContext:
    """Where in the match a model call is made (for the ledger)."""

    method: str
    round: int
    turn: int | None


class ModelBackend(Protocol):
    """What a host supplies: the models an agent may call, and the call itself."""

    def model_names(self) -> list[str]:
        """The names the agent may pass as ``model`` (the first is the default)."""
        ...

    def complete(
        self, request: ChatRequest, *, timeout_s: float, context: CallContext
    ) -> tuple[int, dict[str, Any]]:
        """``(200, chat.completion object)`` for ``request`` within ``timeout_s``, or an HTTP
        status and an OpenAI-shaped error body for what the agent must hear (429 budget, 502/503
        provider, 504 timeout). Statuses and bodies, not exceptions: a backend needs nothing of
        this module (``llm_seat.gateway`` imports no sandbox)."""
        ...


def _error(status: int, message: str, kind: str, code: str) -> tuple[int, dict[str, Any]]:
    return status, GatewayError(status, message, kind=kind, code=code).body()


class ModelGateway:
    """One agent's gateway in one match: its token, its allowance, the host's backend.

    ``HarnessHandle`` calls ``begin_call`` at each of the agent's calls and ``handle`` for each
    model line; both are safe from any thread.
    """

    def __init__(
        self,
        backend: ModelBackend,
        *,
        allowance: ModelAllowance | None = None,
        token: str | None = None,
        read_timeout_s: float = 5.0,
    ) -> None:
        self.backend = backend
        #: How long the endpoint in the sandbox waits for one whole HTTP request (a slow
        #: sender is answered 408 past it).
        self.read_timeout_s = read_timeout_s
        self.allowance = allowance or ModelAllowance()
        #: Given to the agent as ``OPENAI_API_KEY``: random per match, worth nothing elsewhere.
        self.token = token or "arena-match-" + secrets.token_urlsafe(24)
        self._lock = threading.Lock()
        self._context = CallContext(method="", round=0, turn=None)
        self._turn_used_s = 0.0
        self._turn_calls = 0
        #: Model time used in the match (seconds) and calls answered, for logs and tests.
        self.match_used_s = 0.0
        self.calls = 0

    def begin_call(self, method: str, payload: Mapping[str, Any]) -> None:
        """A new call of the agent: its per-turn allowance starts again."""
        round_number = payload.get("round")
        turn = payload.get("turn")
        with self._lock:
            self._context = CallContext(
                method=method,
                round=round_number if isinstance(round_number, int) else 0,
                turn=turn if isinstance(turn, int) and not isinstance(turn, bool) else None,
            )
            self._turn_used_s = 0.0
            self._turn_calls = 0

    def close(self) -> None:
        """Let the backend free what it holds (its HTTP connections), when it has a ``close``."""
        close = getattr(self.backend, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # closing must never fail a match that is over
                logger.warning("the model gateway's backend did not close", exc_info=True)

    def refusal_for_rest_of_call(self) -> tuple[int, dict[str, Any]] | None:
        """The answer every further model request of this call would get, when it is already
        certain (no call or no model time left in the turn or the match): the harness then
        answers them itself, so a flood costs the controller nothing."""
        with self._lock:
            calls_left = self.allowance.calls_per_turn - self._turn_calls
            time_left = min(
                self.allowance.per_turn_s - self._turn_used_s,
                self.allowance.per_match_s - self.match_used_s,
            )
        if calls_left <= 0:
            return _error(
                429,
                f"at most {self.allowance.calls_per_turn} model calls in one turn",
                "rate_limit_error",
                "calls_per_turn",
            )
        if time_left <= 0:
            return _error(
                504,
                "no model time left in this turn "
                f"({self.allowance.per_turn_s:g} s a turn, {self.allowance.per_match_s:g} s "
                "a match): answer without the model",
                "timeout",
                "model_time_exhausted",
            )
        return None

    def turn_extension_cap_s(self) -> float:
        """The most a call's backstop may grow for model time (its per-turn allowance, and
        a second for the gateway's own handling)."""
        return self.allowance.per_turn_s + 1.0

    def handle(
        self,
        message: Mapping[str, Any],
        *,
        while_waiting: Callable[[], AbstractContextManager[None]] = nullcontext,
    ) -> tuple[int, dict[str, Any]]:
        """Answer one model line: ``(HTTP status, JSON body)``; never raises. The model is
        called inside ``while_waiting()`` (the handle freezes the agent there)."""
        try:
            return self._handle(message, while_waiting)
        except GatewayError as exc:
            return exc.status, exc.body()
        except Exception:  # the host's backend failed unexpectedly: the agent hears 502
            logger.exception("the model gateway failed on a request")
            return _error(502, "the model gateway failed; try again", "api_error", "gateway_error")

    def _handle(
        self,
        message: Mapping[str, Any],
        while_waiting: Callable[[], AbstractContextManager[None]],
    ) -> tuple[int, dict[str, Any]]:
        token = message.get("token")
        if not isinstance(token, str) or not hmac.compare_digest(
            token.encode("utf-8", "replace"), self.token.encode()
        ):
            return _error(
                401,
                "invalid API key: use the one in OPENAI_API_KEY (the gateway's, for this match)",
                "invalid_request_error",
                "invalid_api_key",
            )
        method, path = message.get("method"), message.get("path")
        if path == "/v1/models":
            if method != "GET":
                return _error(405, "use GET /v1/models", "invalid_request_error", "method")
            names = self.backend.model_names()
            return 200, {
                "object": "list",
                "data": [{"id": n, "object": "model", "owned_by": "arena"} for n in names],
            }
        if path != "/v1/chat/completions":
            return _error(404, "no such path", "invalid_request_error", "unknown_path")
        if method != "POST":
            return _error(405, "use POST /v1/chat/completions", "invalid_request_error", "method")
        request = parse_chat_request(message.get("body"), self.backend.model_names())
        with self._lock:
            if self._turn_calls >= self.allowance.calls_per_turn:
                raise GatewayError(
                    429,
                    f"at most {self.allowance.calls_per_turn} model calls in one turn",
                    kind="rate_limit_error",
                    code="calls_per_turn",
                )
            self._turn_calls += 1
            left_s = min(
                self.allowance.per_turn_s - self._turn_used_s,
                self.allowance.per_match_s - self.match_used_s,
            )
            context = self._context
        if left_s <= 0:
            raise GatewayError(
                504,
                "no model time left in this turn "
                f"({self.allowance.per_turn_s:g} s a turn, {self.allowance.per_match_s:g} s "
                "a match): answer without the model",
                kind="timeout",
                code="model_time_exhausted",
            )
        started = time.perf_counter()
        try:
            with while_waiting():
                status, body = self.backend.complete(request, timeout_s=left_s, context=context)
        finally:
            spent = time.perf_counter() - started
            with self._lock:
                self._turn_used_s += spent
                self.match_used_s += spent
                self.calls += 1
        if not isinstance(status, int) or not isinstance(body, dict):
            raise TypeError("a model backend answered something that is not (status, body)")
        return status, body


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(body: Mapping[str, Any], key: str, low: float, high: float) -> float | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise GatewayError(
            400,
            f"{key} must be a number from {low:g} to {high:g}",
            kind="invalid_request_error",
            code="invalid_value",
        )
    return float(value)


def _depth_ok(value: Any, limit: int) -> bool:
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return False
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return True


def _content_text(content: Any) -> str:
    """A message's content as text: a string, or OpenAI's list of text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if not (isinstance(part, dict) and part.get("type") == "text"):
                raise GatewayError(
                    400,
                    "only text content parts are supported",
                    kind="invalid_request_error",
                    code="unsupported_content",
                )
            text = part.get("text")
            if not isinstance(text, str):
                raise GatewayError(
                    400,
                    "a text part without text",
                    kind="invalid_request_error",
                    code="invalid_value",
                )
            texts.append(text)
        return "".join(texts)
    raise GatewayError(
        400,
        "a message's content must be text",
        kind="invalid_request_error",
        code="invalid_value",
    )


def parse_chat_request(raw: Any, allowed: list[str]) -> ChatRequest:
    """Check a chat completion body (hostile text) and keep what the gateway passes on."""

    def bad(message: str, code: str = "invalid_request") -> GatewayError:
        return GatewayError(400, message, kind="invalid_request_error", code=code)

    if not isinstance(raw, str) or len(raw) > MAX_BODY_CHARS:
        raise bad("the request body must be JSON text of at most 1 MiB")

    def reject(text: str) -> Any:
        raise ValueError(f"{text} is not JSON")

    def finite(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError("not finite")
        return value

    try:
        body = json.loads(raw, parse_constant=reject, parse_float=finite)
    except (ValueError, RecursionError):
        raise bad("the request body is not valid JSON", "invalid_json") from None
    if not isinstance(body, dict) or not _depth_ok(body, MAX_BODY_DEPTH):
        raise bad("the request body must be a JSON object of chat completion fields")
    if body.get("stream"):
        raise bad("streaming is not supported by the gateway: leave stream off", "stream")
    n = body.get("n", 1)
    if n != 1:
        raise bad("the gateway answers one choice a call (n=1)", "invalid_value")
    model = body.get("model")
    if model is None and allowed:
        model = allowed[0]
    if not isinstance(model, str) or not model:
        raise bad("model must be a name (GET /v1/models lists them)", "invalid_value")
    if model not in allowed:
        raise GatewayError(
            403,
            f"model {model[:100]!r} is not allowed for this agent: its owner allows "
            + (", ".join(repr(m) for m in allowed) or "no model"),
            kind="permission_denied_error",
            code="model_not_allowed",
        )
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages or len(messages) > MAX_MESSAGES:
        raise bad(f"messages must be a list of 1 to {MAX_MESSAGES} messages", "invalid_value")
    checked: list[Mapping[str, str]] = []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in ROLES:
            raise bad(
                "each message needs a role (" + ", ".join(sorted(ROLES)) + ") and text content",
                "invalid_value",
            )
        role = "system" if message["role"] == "developer" else str(message["role"])
        checked.append({"role": role, "content": _content_text(message.get("content"))})
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    if max_tokens is not None and (not _is_int(max_tokens) or not 1 <= max_tokens <= 1_000_000):
        raise bad("max_tokens must be a positive integer", "invalid_value")
    return ChatRequest(
        model=model,
        messages=tuple(checked),
        max_tokens=max_tokens,
        temperature=_number(body, "temperature", 0.0, 2.0),
        top_p=_number(body, "top_p", 0.0, 1.0),
    )


def error_body(status: int, message: str, *, kind: str, code: str) -> dict[str, Any]:
    """An OpenAI-shaped error body (for backends that build their own)."""
    return GatewayError(status, message, kind=kind, code=code).body()


__all__ = [
    "CallContext",
    "ChatRequest",
    "GatewayError",
    "ModelAllowance",
    "ModelBackend",
    "ModelGateway",
    "error_body",
    "parse_chat_request",
]

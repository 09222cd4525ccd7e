"""One bounded chat-completion call to an OpenAI-compatible endpoint.

Everything a provider sends is hostile: the HTTP body is read through a stream that stops at
``max_response_bytes`` and at the call's deadline (a 10 MB reply or an endless stream costs at
most the cap), the official client's own retries are off (``max_retries=0``: this module's caller
decides what a failure means) and every call has an explicit timeout. Failures come out as three
exceptions with texts written here, never the provider's (which can echo a key):

* ``CallTimedOut``: no complete answer before the deadline (the model was too slow);
* ``ReplyTooLarge``: the body passed the byte cap (an unreadable answer);
* ``ProviderError``: the provider failed (429, 5xx, refused connection, a body that is not a
  chat completion: ``transient``) or refused the request (401, 403, 404, 400: not transient).
"""

from __future__ import annotations

import functools
import ssl
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2 as httpx
import openai

#: What is kept of a reply's text and reasoning (characters), whatever the provider sends.
MAX_TEXT_CHARS = 32_000


@dataclass(frozen=True)
class Endpoint:
    """A registered model: where it answers and what its tokens cost (USD per million)."""

    name: str
    base_url: str
    model: str
    api_key: str = field(default="", repr=False)
    price_input_per_mtok_usd: float = 0.0
    price_output_per_mtok_usd: float = 0.0
    #: How JSON output is asked for: ``json_schema`` (OpenAI's ``response_format``) or
    #: ``json_object`` (``{"type": "json_object", "schema": ...}``: llama-cpp-python's server).
    json_style: str = "json_schema"

    def cost_usd(self, prompt_tokens: int, completion_tokens: int) -> float:
        """What a call with these token counts costs."""
        return (
            prompt_tokens * self.price_input_per_mtok_usd
            + completion_tokens * self.price_output_per_mtok_usd
        ) / 1_000_000


@dataclass(frozen=True)
class Sampling:
    """Sampling parameters sent with every call; ``None`` leaves the provider's default."""

    max_tokens: int = 256
    temperature: float | None = None
    top_p: float | None = None
    #: Sent as ``seed`` to providers that take one (OpenAI, llama-cpp-python): a judge's same
    #: request gets the same answer.
    seed: int | None = None

    def as_params(self) -> dict[str, Any]:
        """The request fields."""
        params: dict[str, Any] = {"max_tokens": self.max_tokens}
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if self.top_p is not None:
            params["top_p"] = self.top_p
        if self.seed is not None:
            params["seed"] = self.seed
        return params


@dataclass(frozen=True)
class Completion:
    """One answer: its text, its reasoning (when the provider returns it apart), its usage."""

    text: str
    reasoning: str
    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int
    latency_s: float
    request_id: str
    cost_usd: float
    finish_reason: str


class CallTimedOut(Exception):
    """No complete answer before the call's deadline."""

    def __init__(self, elapsed_s: float) -> None:
        super().__init__(f"no answer within {elapsed_s:.2f} s")
        self.elapsed_s = elapsed_s


class ReplyTooLarge(Exception):
    """The answer's body passed the byte cap."""

    def __init__(self, cap_bytes: int, elapsed_s: float) -> None:
        super().__init__(f"the answer passed {cap_bytes} bytes and was cut")
        self.cap_bytes = cap_bytes
        self.elapsed_s = elapsed_s


class ProviderError(Exception):
    """The provider failed (``transient``) or refused the request (not transient)."""

    def __init__(self, message: str, *, transient: bool, status: int | None = None) -> None:
        super().__init__(message)
        self.transient = transient
        self.status = status


class _Cut:
    """Why the last body read was stopped (per client; a seat's calls are sequential)."""

    def __init__(self) -> None:
        self.local = threading.local()

    @property
    def why(self) -> str | None:
        return getattr(self.local, "why", None)

    @why.setter
    def why(self, value: str | None) -> None:
        self.local.why = value


class _CappedStream(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, cap: int, deadline: float, cut: _Cut) -> None:
        self.inner, self.cap, self.deadline, self.cut = inner, cap, deadline, cut

    def __iter__(self) -> Iterator[bytes]:
        total = 0
        for chunk in self.inner:
            total += len(chunk)
            if total > self.cap:
                self.cut.why = "size"
                raise httpx.ReadError("the answer passed the byte cap")
            if time.monotonic() > self.deadline:
                self.cut.why = "deadline"
                raise httpx.ReadTimeout("the answer passed the call's deadline")
            yield chunk

    def close(self) -> None:
        self.inner.close()


class _CappedTransport(httpx.BaseTransport):
    """Wraps every response body in a ``_CappedStream`` (cap and deadline per request)."""

    def __init__(self, inner: httpx.BaseTransport, cap: int, cut: _Cut) -> None:
        self.inner, self.cap, self.cut = inner, cap, cut

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        timeouts = request.extensions.get("timeout", {})
        budget = timeouts.get("read") or 60.0
        deadline = time.monotonic() + float(budget)
        response = self.inner.handle_request(request)
        assert isinstance(response.stream, httpx.SyncByteStream)
        response.stream = _CappedStream(response.stream, self.cap, deadline, self.cut)
        return response

    def close(self) -> None:
        self.inner.close()


def _text(value: Any) -> str:
    return value[:MAX_TEXT_CHARS] if isinstance(value, str) else ""


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The verifying TLS context every client of this process shares (as a transport of its own
    would build it). Building one loads the CA bundle, tens of milliseconds of CPU: once a seat,
    that was a fifth of a model pool's CPU (``bench/llm_seats.py``)."""
    return httpx.create_ssl_context()


class ModelClient:
    """Calls one endpoint; one per seat (its calls are sequential)."""

    def __init__(self, endpoint: Endpoint, *, max_response_bytes: int = 1 << 20) -> None:
        self.endpoint = endpoint
        self.max_response_bytes = max_response_bytes
        self._cut = _Cut()
        transport = _CappedTransport(
            httpx.HTTPTransport(verify=tls_context(), retries=0), max_response_bytes, self._cut
        )
        self._http = httpx.Client(transport=transport, follow_redirects=False, trust_env=False)
        self._client = openai.OpenAI(
            base_url=endpoint.base_url,
            # A local server takes any key; the client refuses an empty one.
            api_key=endpoint.api_key or "no-key",
            max_retries=0,
            timeout=60.0,
            http_client=self._http,
        )

    def close(self) -> None:
        """Close the connections."""
        self._http.close()

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        sampling: Sampling,
        timeout_s: float,
        response_schema: Mapping[str, Any] | None = None,
    ) -> Completion:
        """One call, cut at ``timeout_s``; see the module's docstring for what it raises."""
        params = sampling.as_params()
        if response_schema is not None and self.endpoint.json_style == "json_object":
            params["response_format"] = {"type": "json_object", "schema": dict(response_schema)}
        elif response_schema is not None:
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "action", "schema": dict(response_schema)},
            }
        self._cut.why = None
        timeout = httpx.Timeout(max(0.001, timeout_s))
        started = time.monotonic()
        try:
            raw = self._client.chat.completions.with_raw_response.create(
                model=self.endpoint.model,
                messages=[dict(m) for m in messages],  # type: ignore[misc]
                timeout=timeout,
                **params,
            )
            response = raw.parse()
        except openai.APIStatusError as exc:
            raise self._status_error(exc.status_code) from None
        except (openai.APITimeoutError, openai.APIConnectionError, httpx.HTTPError) as exc:
            elapsed = time.monotonic() - started
            if self._cut.why == "size":
                raise ReplyTooLarge(self.max_response_bytes, elapsed) from None
            if self._cut.why == "deadline" or isinstance(
                exc, openai.APITimeoutError | httpx.TimeoutException
            ):
                raise CallTimedOut(elapsed) from None
            raise ProviderError(
                f"could not reach the model at {self.endpoint.base_url} "
                "(connection refused or dropped)",
                transient=True,
            ) from None
        except Exception:  # a body that is not a chat completion: the provider's fault
            raise ProviderError(
                "the model's endpoint answered with something that is not a chat completion",
                transient=True,
            ) from None
        latency = time.monotonic() - started
        return self._completion(response, raw.headers, latency)

    def _status_error(self, status: int) -> ProviderError:
        if status == 429:
            return ProviderError(
                "the provider is rate-limiting (HTTP 429)", transient=True, status=status
            )
        if status >= 500:
            return ProviderError(
                f"the provider failed (HTTP {status})", transient=True, status=status
            )
        what = {
            401: "refused the key (HTTP 401): the key in its environment variable is wrong",
            403: "refused access (HTTP 403): the key may not use this model",
            404: "does not know this model or path (HTTP 404): check the base URL and model id",
        }.get(status, f"refused the request (HTTP {status})")
        return ProviderError(f"the model's endpoint {what}", transient=False, status=status)

    def _completion(self, response: Any, headers: Mapping[str, str], latency: float) -> Completion:
        try:
            choice = response.choices[0]
            message = choice.message
        except (AttributeError, IndexError, TypeError):
            raise ProviderError(
                "the model's endpoint answered without a choice", transient=True
            ) from None
        extra = getattr(message, "model_extra", None) or {}
        reasoning = _text(extra.get("reasoning_content") or extra.get("reasoning"))
        usage = getattr(response, "usage", None)
        prompt_tokens = _int(getattr(usage, "prompt_tokens", 0))
        completion_tokens = _int(getattr(usage, "completion_tokens", 0))
        details = getattr(usage, "completion_tokens_details", None)
        reasoning_tokens = _int(getattr(details, "reasoning_tokens", 0))
        request_id = headers.get("x-request-id") or _text(getattr(response, "id", ""))
        return Completion(
            text=_text(getattr(message, "content", "")),
            reasoning=reasoning,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            reasoning_tokens=reasoning_tokens,
            latency_s=latency,
            request_id=request_id[:200],
            cost_usd=self.endpoint.cost_usd(prompt_tokens, completion_tokens),
            finish_reason=_text(getattr(choice, "finish_reason", ""))[:32],
        )

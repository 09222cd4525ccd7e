"""A model's endpoint over TLS: every client of a process shares one verifying context (built
once, not once a seat), which refuses a certificate it cannot verify and trusts what its
authorities sign. A local HTTPS server with a throw-away certificate authority (trustme)."""

from __future__ import annotations

import http.server
import json
import ssl
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import trustme

from llm_seat import Endpoint, ModelClient, ProviderError, Sampling
from llm_seat.client import tls_context

ANSWER = {
    "id": "chatcmpl-tls",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": '{"move": "e2e4"}'},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8},
}


@pytest.fixture
def https_model() -> Iterator[tuple[trustme.CA, str]]:
    ca = trustme.CA()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            body = json.dumps(ANSWER).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(tls)
    server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield ca, f"https://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        tls_context.cache_clear()  # a test may have taught the shared context its authority


def ask(url: str) -> Any:
    client = ModelClient(Endpoint(name="tls", base_url=url, model="m"))
    try:
        return client.complete(
            [{"role": "user", "content": "your move"}],
            sampling=Sampling(max_tokens=8),
            timeout_s=10,
        )
    finally:
        client.close()


def test_every_client_shares_one_context_that_verifies() -> None:
    context = tls_context()
    assert context is tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname


def test_a_certificate_the_context_cannot_verify_is_refused(
    https_model: tuple[trustme.CA, str],
) -> None:
    _, url = https_model
    with pytest.raises(ProviderError, match="could not reach the model"):
        ask(url)


def test_a_server_signed_by_a_trusted_authority_answers(
    https_model: tuple[trustme.CA, str],
) -> None:
    ca, url = https_model
    tls_context.cache_clear()
    ca.configure_trust(tls_context())
    answer = ask(url)
    assert answer.text == '{"move": "e2e4"}' and answer.completion_tokens == 5

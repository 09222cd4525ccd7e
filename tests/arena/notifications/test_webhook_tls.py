"""Webhook delivery over real TLS: a local HTTPS server whose certificate comes from a test
certificate authority (trustme). The delivery verifies the certificate against the URL's host
name and the system's trusted authorities, signs the body, and records what happened.

The server listens on 127.0.0.1, which the webhook rules refuse; the tests let exactly that
address through and leave every other check as it is."""

from __future__ import annotations

import hashlib
import hmac
import http.server
import json
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trustme
from arena.notifications import services as notification_services
from arena.notifications import webhooks
from arena.notifications.models import Delivery
from arena.notifications.services import notify

HOST = "hooks.example.org"


@dataclass
class HttpsServer:
    ca: trustme.CA
    port: int
    ca_file: Path
    received: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)


@pytest.fixture
def https_server(tmp_path: Path) -> Iterator[HttpsServer]:
    ca = trustme.CA()
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    received: list[tuple[str, dict[str, str], bytes]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            received.append((self.path, dict(self.headers.items()), body))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(HOST).configure_cert(tls)
    server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield HttpsServer(ca=ca, port=server.server_address[1], ca_file=ca_file, received=received)
    finally:
        server.shutdown()
        server.server_close()


def target(server: HttpsServer, host: str = HOST) -> webhooks.Target:
    return webhooks.Target(host=host, address="127.0.0.1", port=server.port, path="/arena?x=1")


def test_a_post_reaches_a_server_whose_certificate_is_trusted(
    https_server: HttpsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(https_server.ca_file))
    status = webhooks.post(target(https_server), b'{"a": 1}', {"X-Test": "yes"}, 5.0)
    assert status == 204
    [(path, headers, body)] = https_server.received
    assert (path, body, headers["X-Test"]) == ("/arena?x=1", b'{"a": 1}', "yes")


def test_an_untrusted_or_misnamed_certificate_is_refused(
    https_server: HttpsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The test authority is not trusted: the handshake fails, nothing is sent.
    with pytest.raises(ssl.SSLCertVerificationError):
        webhooks.post(target(https_server), b"{}", {}, 5.0)
    # Trusted, but issued for another name than the URL's host.
    monkeypatch.setenv("SSL_CERT_FILE", str(https_server.ca_file))
    with pytest.raises(ssl.SSLCertVerificationError, match="(?i)hostname|match"):
        webhooks.post(target(https_server, host="other.example.org"), b"{}", {}, 5.0)
    assert https_server.received == []


def _let_loopback_through(monkeypatch: pytest.MonkeyPatch, https_server: HttpsServer) -> None:
    public = webhooks.address_is_public
    monkeypatch.setattr(webhooks, "resolve", lambda host, port: ["127.0.0.1"])
    monkeypatch.setattr(webhooks, "address_is_public", lambda a: a == "127.0.0.1" or public(a))


def test_a_notification_is_delivered_signed_over_tls_and_a_bad_certificate_recorded(
    https_server: HttpsServer,
    make_user: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    alice = make_user("alice")
    _let_loopback_through(monkeypatch, https_server)
    hook = notification_services.webhook_set(
        user=alice, url=f"https://{HOST}:{https_server.port}/arena?x=1"
    )
    monkeypatch.setenv("SSL_CERT_FILE", str(https_server.ca_file))
    with django_capture_on_commit_callbacks(execute=True):
        notify(user=alice, kind="challenge_received", subject="bob challenged", url="/matches/3/")
    [(path, headers, body)] = https_server.received
    expected = hmac.new(
        hook.secret.encode(), headers["X-Arena-Timestamp"].encode() + b"." + body, hashlib.sha256
    ).hexdigest()
    assert hmac.compare_digest(headers["X-Arena-Signature"], f"sha256={expected}")
    assert path == "/arena?x=1" and json.loads(body)["subject"] == "bob challenged"
    sent = Delivery.objects.get(channel="webhook")
    assert sent.status == "sent", (sent.status, sent.last_error)
    # The server's authority is no longer trusted: the delivery fails and says why.
    monkeypatch.delenv("SSL_CERT_FILE")
    with django_capture_on_commit_callbacks(execute=True):
        notify(user=alice, kind="challenge_received", subject="again")
    assert len(https_server.received) == 1
    failed = Delivery.objects.filter(channel="webhook").order_by("-id").first()
    assert failed is not None and failed.status != "sent"
    assert "certificate" in failed.last_error.lower()

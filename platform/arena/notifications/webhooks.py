"""Webhook deliveries: HTTPS only, to public addresses only, HMAC-signed (docs/using.md,
"Notifications").

An address is checked when the webhook is saved and again at every send: the host is resolved
and every address it resolves to must be public (no private, loopback, link-local, multicast,
reserved or unspecified address, IPv4-mapped ones included); the request then connects to the
address that was checked, so a DNS answer that changes in between (rebinding) cannot redirect
it to an internal one. The body is signed with the webhook's secret:
``X-Arena-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`` with the timestamp in
``X-Arena-Timestamp``.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

SIGNATURE_HEADER = "X-Arena-Signature"
TIMESTAMP_HEADER = "X-Arena-Timestamp"
EVENT_HEADER = "X-Arena-Event"


class WebhookRefused(Exception):
    """A URL the platform will not post to; ``str()`` says why and what to do."""


@dataclass(frozen=True)
class Target:
    """Where one delivery goes: the checked address and the name TLS verifies."""

    host: str
    address: str
    port: int
    path: str


def address_is_public(address: str) -> bool:
    """False for private, loopback, link-local, multicast, reserved and unspecified addresses
    (an IPv4 address mapped into IPv6 is judged as the IPv4 one)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
        or not ip.is_global
    )


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (a literal address resolves to itself)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def webhook_target(url: str) -> Target:
    """Check ``url`` and resolve it; ``WebhookRefused`` unless it is HTTPS to public addresses
    only. Returns the first checked address to connect to."""
    parts = urlsplit(url)
    if parts.scheme != "https":
        raise WebhookRefused("a webhook URL must start with https:// (plain http is refused)")
    if not parts.hostname:
        raise WebhookRefused("the webhook URL has no host name")
    if parts.username or parts.password:
        raise WebhookRefused("the webhook URL must not carry a user name or password")
    try:
        port = parts.port or 443
    except ValueError:
        raise WebhookRefused("the webhook URL's port is not a number from 1 to 65535") from None
    try:
        addresses = resolve(parts.hostname, port)
    except (OSError, UnicodeError):
        raise WebhookRefused(f"the host {parts.hostname!r} does not resolve") from None
    if not addresses:
        raise WebhookRefused(f"the host {parts.hostname!r} does not resolve")
    for address in addresses:
        if not address_is_public(address):
            raise WebhookRefused(
                f"{parts.hostname} resolves to {address}, a private, loopback or link-local "
                "address: webhooks only go to public addresses"
            )
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(host=parts.hostname, address=addresses[0], port=port, path=path)


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """The ``X-Arena-Signature`` value: ``sha256=`` + hex HMAC-SHA256 of ``timestamp.body``."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a checked address, verifying the certificate against the host name."""

    def __init__(self, target: Target, timeout_s: float, context: ssl.SSLContext) -> None:
        super().__init__(target.host, target.port, timeout=timeout_s, context=context)
        self._address = target.address
        self._tls = context

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(sock, server_hostname=self.host)


def post(target: Target, body: bytes, headers: dict[str, str], timeout_s: float) -> int:
    """POST ``body`` to the checked address; returns the HTTP status (redirects not followed)."""
    connection = _PinnedHTTPSConnection(target, timeout_s, ssl.create_default_context())
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        response = connection.getresponse()
        response.read(4096)
        return int(response.status)
    finally:
        connection.close()

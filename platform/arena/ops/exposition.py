"""Serving the metrics: who may read them, and the text Prometheus scrapes."""

from __future__ import annotations

import hmac
import ipaddress
import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from django.conf import settings
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from arena import metrics

logger = logging.getLogger(__name__)


#: Headers a proxy adds: a request carrying one came through a proxy, whose own address says
#: nothing about the client's, so the address list does not apply to it (the token does).
PROXY_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP")


def metrics_allowed(*, remote_addr: str, authorization: str, proxied: bool = False) -> bool:
    """A scrape may read the metrics: with the bearer token, or from an allowed address when it
    did not come through a proxy."""
    token = settings.ARENA_METRICS_TOKEN
    if (
        token
        and authorization.startswith("Bearer ")
        and hmac.compare_digest(authorization[len("Bearer ") :].strip(), token)
    ):
        return True
    if proxied:
        return False
    try:
        address = ipaddress.ip_address(remote_addr)
    except ValueError:
        return False
    for allowed in settings.ARENA_METRICS_ALLOWED_IPS:
        try:
            if address in ipaddress.ip_network(allowed, strict=False):
                return True
        except ValueError:
            logger.warning("ARENA_METRICS_ALLOWED_IPS: %r is no address or network", allowed)
    return False


def metrics_text(extra: Iterable[Any] = ()) -> bytes:
    """Every process's metrics on this host (the multiprocess folder), plus ``extra`` collectors
    computed now."""
    registry = CollectorRegistry()
    # prometheus_client leaves this constructor unannotated (registry, path=None).
    MultiProcessCollector(registry, path=metrics.METRICS_DIR)  # type: ignore[no-untyped-call]
    for collector in extra:
        registry.register(collector)
    return generate_latest(registry)


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        return


def _exporter_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
    allowed = metrics_allowed(
        remote_addr=str(environ.get("REMOTE_ADDR", "")),
        authorization=str(environ.get("HTTP_AUTHORIZATION", "")),
        proxied=any(environ.get(header) for header in PROXY_HEADERS),
    )
    if environ.get("PATH_INFO") != "/metrics":
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found\n"]
    if not allowed:
        start_response("403 Forbidden", [("Content-Type", "text/plain")])
        return [b"forbidden\n"]
    body = metrics_text()
    start_response("200 OK", [("Content-Type", CONTENT_TYPE_LATEST)])
    return [body]


def exporter_start(*, port: int, host: str = "0.0.0.0") -> WSGIServer:  # noqa: S104 - a port an operator opens
    """Serve this host's metrics on ``port`` (``/metrics``) from a daemon thread."""
    server = make_server(host, port, _exporter_app, handler_class=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, name="arena-metrics", daemon=True)
    thread.start()
    return server

"""While the database or the broker is away, pages answer at once with a plain 503.

A view that meets a refused or broken connection (PostgreSQL restarting, Redis killed) gets
``503 Service Unavailable`` with ``Retry-After`` and a sentence saying so, instead of a
traceback page or a 500: the public learns nothing about the platform's insides, and the
client knows to come back. Connections are bounded (``ARENA_DB_CONNECT_TIMEOUT_S``), so a
database that does not answer fails fast instead of hanging the request.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

logger = logging.getLogger(__name__)

OUTAGE_MESSAGE = (
    "Agent Arena is briefly unavailable: a service it relies on is not answering. "
    "Nothing you did caused this; try again in a minute."
)
OUTAGE_RETRY_AFTER_S = 30


def _outage_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [OperationalError, InterfaceError]
    try:
        from kombu.exceptions import OperationalError as BrokerError

        errors.append(BrokerError)
    except ImportError:  # pragma: no cover - kombu comes with Celery
        pass
    try:
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError

        errors += [RedisConnectionError, RedisTimeoutError]
    except ImportError:  # pragma: no cover - redis is a dependency
        pass
    return tuple(errors)


OUTAGE_ERRORS = _outage_errors()


def outage_response(request: HttpRequest) -> HttpResponse:
    """The 503 a request gets while a part is away (the API's error shape under /api/)."""
    if request.path_info.startswith("/api/"):
        response: HttpResponse = JsonResponse({"error": OUTAGE_MESSAGE, "details": []}, status=503)
    else:
        response = HttpResponse(
            OUTAGE_MESSAGE, status=503, content_type="text/plain; charset=utf-8"
        )
    response["Retry-After"] = str(OUTAGE_RETRY_AFTER_S)
    return response


class OutageMiddleware:
    """Turn a lost database or broker connection inside a view into a plain 503."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OUTAGE_ERRORS):
            return None
        logger.warning(
            "%s %s: 503, a part is away: %s", request.method, request.path, type(exception).__name__
        )
        return outage_response(request)

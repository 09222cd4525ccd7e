"""What the platform's log keeps: what an operator acts on (settings ``LOGGING``).

A refused request is the visitor's business, not the operator's: the visitor got a clean 4xx
page saying why, so Django's record of it (with a whole traceback for a 403 raised as
``PermissionDenied``) is dropped. Server errors (5xx) stay, with their tracebacks.
"""

from __future__ import annotations

import logging


class RefusedRequests(logging.Filter):
    """Drops ``django.request`` / ``django.security.csrf`` records of a 4xx answer."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        return not (isinstance(status, int) and 400 <= status < 500)

"""Refusals a service raises; views turn them into a page message or a 4xx JSON body."""

from __future__ import annotations


class Refused(Exception):
    """A request the platform will not carry out, with a reason for the person who made it."""

    status = 400

    def __init__(self, message: str, *, details: list[dict[str, object]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or []


class Forbidden(Refused):
    """The request touches someone else's agent."""

    status = 403


class NotFound(Refused):
    """No such object (or not visible to this user)."""

    status = 404


class RateLimited(Refused):
    """Too many requests of this kind in the window; ``retry_after_s`` says when to try again."""

    status = 429

    def __init__(
        self,
        message: str,
        *,
        retry_after_s: int = 60,
        details: list[dict[str, object]] | None = None,
    ) -> None:
        super().__init__(message, details=details)
        self.retry_after_s = retry_after_s

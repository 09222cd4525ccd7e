"""Exceptions shared by games, the referee and agent handles.

Every message is written for the person who caused the error: an illegal action says which rule it
broke, an agent error says what the agent did.
"""

from __future__ import annotations

from collections.abc import Mapping


class IllegalActionError(ValueError):
    """An action that the rules forbid right now; the message names the rule.

    As python-chess's ``IllegalMoveError``, it subclasses ``ValueError``. Only this (and
    ``ActionParseError`` from a parser) is an illegal action: the referee treats any other exception
    from a game as a bug of the engine, a platform error that nobody forfeits.
    """


class ActionParseError(ValueError):
    """What an agent returned is not an action of the expected shape; the message says why."""


class AgentError(Exception):
    """Base class of everything an agent handle raises about the agent it runs."""


class AgentInitError(AgentError):
    """The agent never became ready: its source failed to load, ``GAME`` was wrong, ``__init__``
    raised, or loading took longer than its budget."""

    def __init__(self, message: str, traceback: str = "") -> None:
        super().__init__(message)
        self.traceback = traceback


class AgentTimeout(AgentError):
    """A call took longer than the budget it was given (wall time measured by the controller)."""

    def __init__(
        self,
        method: str,
        elapsed_s: float,
        budget_s: float,
        *,
        host_wait: Mapping[str, float] | None = None,
    ) -> None:
        super().__init__(
            f"{method} did not answer within {budget_s:.2f} s"
            + (f" (stopped waiting after {elapsed_s:.2f} s)" if elapsed_s else "")
        )
        self.method = method
        self.elapsed_s = elapsed_s
        self.budget_s = budget_s
        #: What the sandbox saw of the agent's threads in the call (the backstop's host-wait
        #: extension: threads, CPU they ran, longest wait for a CPU), where it could look.
        self.host_wait = dict(host_wait) if host_wait else None


class AgentCrash(AgentError):
    """The agent's process died, ran out of memory or broke the protocol."""


class PlatformError(Exception):
    """Something outside the agent failed (Docker engine gone, image missing).

    Never the agent's fault: the platform retries the match and records it unrated.
    """

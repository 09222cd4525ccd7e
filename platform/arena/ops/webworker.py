"""gunicorn's threaded worker, stopping without dropping a connection it accepted.

gunicorn's ``gthread`` worker accepts a connection, then waits for it to become readable before
handing it to a thread. Told to stop gracefully (SIGTERM: its master stops or reloads), it leaves
its loop at once, and the connections it had accepted but not yet read are closed unanswered (the
client reads "connection reset"). That is what a restart of web did to requests that arrived in
its last moment, even with ``make run`` holding the socket so that later ones wait for the new
master. This worker stops accepting first (its copy of the listening socket leaves its poller:
new connections wait in the socket's backlog for the next worker or master), serves what it had
accepted, and leaves its loop once nothing is waiting, or after ``DRAIN_S`` at most.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from gunicorn.workers.gthread import ThreadWorker

#: The longest a stopping worker keeps serving what it had accepted (idle keep-alive connections
#: included, which gunicorn closes after its ``keepalive`` seconds).
DRAIN_S = 5.0


class DrainingThreadWorker(ThreadWorker):  # type: ignore[misc]
    """``gthread`` that drains its accepted connections before a graceful exit."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.drain_until: float | None = None

    def handle_exit(self, sig: int, frame: Any) -> None:
        """SIGTERM: stop accepting now, leave the loop once the accepted connections are served."""
        if self.drain_until is not None:
            return
        self.drain_until = time.monotonic() + DRAIN_S
        for sock in self.sockets:
            with contextlib.suppress(KeyError, ValueError, OSError):
                self.poller.unregister(sock)

    def murder_keepalived(self) -> None:
        """gunicorn's keep-alive sweep (run once a loop), then: drained yet?"""
        super().murder_keepalived()
        if self.drain_until is None:
            return
        waiting = len(self.poller.get_map() or {})  # accepted connections not yet read
        if (waiting == 0 and not self.futures) or time.monotonic() > self.drain_until:
            self.alive = False

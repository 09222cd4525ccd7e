"""The Docker engine as this process sees it: one client, and the background threads that remove
and rename containers, all held by one ``DockerEngine`` object per process.

A forked worker process must not share its parent's connections to the engine nor believe the
parent's threads are its own: after a fork the child gets a fresh ``DockerEngine`` (``current``),
created on first use. Removals run in the background so that a match's end (and the next match)
never waits for the engine's ``rm -f`` (about 100 ms a container, more when busy);
``wait_for_removals`` blocks until every container this process queued is gone (leak checks,
shutdown, and at exit).

Failures of the engine itself (gone, busy) raise ``PlatformError`` where a caller needs an answer,
and never count against an agent.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import logging
import os
import queue
import threading
import time
from typing import Any

import docker
import docker.errors
import requests.exceptions

from games.core.errors import PlatformError

#: What the Docker SDK raises when the engine fails us (gone, busy, refusing).
ENGINE_ERRORS = (
    docker.errors.DockerException,
    requests.exceptions.RequestException,
    OSError,
)

#: How long the remover waits for a closed agent's harness to exit by itself (it sees the end of
#: its input) before the engine kills it.
EXIT_WAIT_S = 1.0
#: Pauses before each new attempt at a removal the engine refused (``DockerEngine.remove_now``):
#: about 30 s in all. A container that exits as the engine kills it is refused with 409 "is not
#: running" until the engine has handled its exit, which a host busy creating and removing
#: containers delays by seconds (3.7 s of retries once left one behind in CI); the removals run
#: in the background, so waiting longer costs no match anything.
REMOVE_RETRY_PAUSES_S = (0.2, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0)
#: Threads removing containers in the background.
REMOVER_THREADS = 2

logger = logging.getLogger(__name__)


class DockerEngine:
    """This process's view of the Docker engine: its client and its background work."""

    def __init__(self) -> None:
        self._client: Any = None
        self._client_lock = threading.Lock()
        self._removals: queue.Queue[tuple[str, bool]] = queue.Queue()
        self._removers_lock = threading.Lock()
        self._removers_started = False
        self._namer: concurrent.futures.ThreadPoolExecutor | None = None
        self._namer_lock = threading.Lock()

    # --- the client ---------------------------------------------------------------------------

    def client(self) -> Any:
        """The Docker client (created on first use); ``PlatformError`` without an engine."""
        with self._client_lock:
            if self._client is None:
                try:
                    self._client = docker.from_env(timeout=60)
                except ENGINE_ERRORS as exc:
                    raise PlatformError(
                        f"no Docker engine answers ({exc}); start Docker, or play with "
                        "`--sandbox process` (not isolated)"
                    ) from exc
            return self._client

    def ready(self, image: str) -> bool:
        """True when the engine answers and ``image`` exists on it."""
        try:
            client = self.client()
            client.api.ping()
            client.api.inspect_image(image)
        except (PlatformError, *ENGINE_ERRORS):
            return False
        return True

    # --- removing -----------------------------------------------------------------------------

    def remove_later(self, container_id: str, *, exits: bool = False) -> None:
        """Remove the container in the background; ``exits``: it is ending by itself (its
        channel was closed, so its harness exits), which the remover waits for, up to
        ``EXIT_WAIT_S``: removing a container that exited costs the engine about 15 ms of CPU
        less than one it must kill."""
        with self._removers_lock:
            if not self._removers_started:
                self._removers_started = True
                for number in range(REMOVER_THREADS):
                    threading.Thread(
                        target=self._remove_in_background,
                        name=f"arena-remover-{number}",
                        daemon=True,
                    ).start()
        self._removals.put((container_id, exits))

    def wait_for_removals(self) -> None:
        """Block until every container queued by ``remove_later`` is gone."""
        with self._removers_lock:
            if not self._removers_started:
                return
        self._removals.join()

    def remove_now(self, container_id: str) -> None:
        """Remove the container, killing it if it runs; retry what the engine refuses for a
        moment.

        ``remove(force=True)`` of a container that exits by itself at that moment fails with 409
        "Could not kill running container ..., cannot remove - Container ... is not running":
        the engine saw it running, then could not kill it. A busy host widens that window (a
        harness that takes over ``EXIT_WAIT_S`` to end) and keeps the engine refusing until it
        has handled the exit; a later attempt finds it exited and removes it.
        """
        for attempt, pause in enumerate((*REMOVE_RETRY_PAUSES_S, None)):
            try:
                self.client().api.remove_container(container_id, force=True)
                return
            except docker.errors.NotFound:
                return
            except (PlatformError, *ENGINE_ERRORS) as exc:
                # Only an answer of the engine is worth another try; no engine (or no answer)
                # is not.
                if pause is None or not isinstance(exc, docker.errors.APIError):
                    # Left for the orphan sweep; never lose a match result over cleaning.
                    tries = attempt + 1
                    logger.warning("could not remove %s (%d tries): %s", container_id, tries, exc)
                    return
                logger.info("removing container %s failed, trying again: %s", container_id, exc)
                time.sleep(pause)

    def _remove_in_background(self) -> None:
        while True:
            container_id, exits = self._removals.get()
            try:
                if exits:
                    self._wait_for_exit(container_id)
                self.remove_now(container_id)
            finally:
                self._removals.task_done()

    def _wait_for_exit(self, container_id: str) -> None:
        try:
            self.client().api.wait(container_id, timeout=EXIT_WAIT_S)
        except (PlatformError, *ENGINE_ERRORS):
            pass  # still running (or the engine is busy): the removal kills it

    # --- naming -------------------------------------------------------------------------------

    def rename_later(self, container_id: str, name: str) -> None:
        """Rename the container in the background (one thread): nobody waits for it."""
        with self._namer_lock:
            if self._namer is None:
                self._namer = concurrent.futures.ThreadPoolExecutor(
                    1, thread_name_prefix="arena-namer"
                )
            self._namer.submit(self._rename, container_id, name)

    def _rename(self, container_id: str, name: str) -> None:
        try:
            self.client().api.rename(container_id, name)
        except (PlatformError, *ENGINE_ERRORS) as exc:  # gone already, or the engine is busy
            logger.debug("could not name container %s %s: %s", container_id, name, exc)


_engine = DockerEngine()


def current() -> DockerEngine:
    """This process's engine (a forked child gets its own)."""
    return _engine


def _fresh_engine_in_child() -> None:
    global _engine
    _engine = DockerEngine()


os.register_at_fork(after_in_child=_fresh_engine_in_child)


def docker_client() -> Any:
    """The process-wide Docker client (created on first use); ``PlatformError`` without one."""
    return current().client()


def docker_ready(image: str) -> bool:
    """True when an engine answers and ``image`` exists on it."""
    return current().ready(image)


def wait_for_removals() -> None:
    """Block until every container this process queued for removal is gone."""
    current().wait_for_removals()


atexit.register(wait_for_removals)

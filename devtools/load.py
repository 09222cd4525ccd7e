"""Load that tests and benchmarks put on the machine while they measure the sandbox."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager


@contextmanager
def container_churn(
    image: str, labels: Mapping[str, str] | None = None
) -> Iterator[dict[str, int]]:
    """A thread creating, starting and removing containers of ``image`` in a loop until the block
    ends; ``counts["containers"]`` says how many it went through.

    The containers carry the labels of this process's sandbox containers (so the sweeps that keep
    the engine clean know them) and ``labels``.
    """
    from sandbox.container_config import LABEL, OWNER_LABEL, owner
    from sandbox.engine import current, docker_client
    from sandbox.instance import INSTANCE_LABEL, PROCESS_INSTANCE

    stop = threading.Event()
    counts = {"containers": 0}
    all_labels = {
        LABEL: "1",
        INSTANCE_LABEL: PROCESS_INSTANCE,
        OWNER_LABEL: owner(),
        **(labels or {}),
    }

    def loop() -> None:
        api = docker_client().api
        while not stop.is_set():
            cid = api.create_container(image, command=["true"], labels=all_labels)["Id"]
            try:
                api.start(cid)
            finally:
                # ``true`` exits as the kill comes: the engine's 409 that the sandbox's own
                # removals retry would end this thread and leave the container behind.
                current().remove_now(cid)
            counts["containers"] += 1

    thread = threading.Thread(target=loop, name="churn", daemon=True)
    thread.start()
    try:
        yield counts
    finally:
        stop.set()
        thread.join(60)

"""Fixtures for the sandbox tests: the backends, and the agents written as source text."""

from __future__ import annotations

import contextlib
import textwrap
import threading
from collections.abc import Callable, Iterator

import pytest

from llm_seat.gateway import BudgetSpent
from llm_seat.handle import CallRecord
from sandbox import SANDBOX_IMAGE, SandboxLimits
from tests.conftest import require_part


def docker_available() -> bool:
    """True when an engine answers and the sandbox image holds the current harness."""
    from sandbox.engine import docker_client, docker_ready
    from sandbox.image.build import image_is_current

    return docker_ready(SANDBOX_IMAGE) and image_is_current(docker_client(), SANDBOX_IMAGE)


def require_docker() -> None:
    """Skip (locally) or fail (in CI) without an engine and a current image."""
    require_part(
        docker_available(),
        "needs a Docker engine and a sandbox image built from this harness.py (make image)",
    )


@pytest.fixture(params=["process", pytest.param("docker", marks=pytest.mark.docker)])
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each test taking ``backend`` runs against both backends."""
    if request.param == "docker":
        require_docker()
    yield request.param
    # A docker test's leftovers are checked after every docker test (tests/conftest.py).


def own_container_labels(ttl_s: int = 3600) -> dict[str, str]:
    """The labels of a sandbox container of this process's instance, made by this process and
    alive for ``ttl_s`` more seconds: no sweep's to remove, and the leak check's to find."""
    import time

    from sandbox.container_config import EXPIRES_LABEL, LABEL, OWNER_LABEL, owner
    from sandbox.instance import INSTANCE_LABEL, PROCESS_INSTANCE

    return {
        LABEL: "1",
        INSTANCE_LABEL: PROCESS_INSTANCE,
        OWNER_LABEL: owner(),
        EXPIRES_LABEL: str(int(time.time()) + ttl_s),
    }


#: Fast limits for tests: freezing on (the default) so that path is exercised.
TEST_LIMITS = SandboxLimits()


def agent_source(body: str, game: str = "simple-card", header: str = "") -> str:
    """An agent file: ``header`` at module level, ``body`` inside ``class Agent``."""
    return (
        textwrap.dedent(header)
        + f"\n\nclass Agent:\n    GAME = {game!r}\n\n"
        + textwrap.indent(textwrap.dedent(body), "    ")
    )


PLAY_HIGHEST = """
def on_turn(self, state):
    return {"type": "play_card", "card": max(state["hand"])}
"""


class CountingHooks:
    """A payer with a budget of ``cap_calls`` calls and a ledger in a list (thread-safe): each
    call holds one of the budget's calls while in flight, as the platform's ``AgentMeter``
    holds its most cost, so calls made at once never pass the budget."""

    def __init__(self, cap_calls: int | None = None) -> None:
        self.cap_calls = cap_calls
        self.records: list[CallRecord] = []
        self.held = 0
        self.lock = threading.Lock()

    def slot(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def reserve(self, max_cost_usd: float) -> Iterator[Callable[[CallRecord], None]]:
        with self.lock:
            if self.cap_calls is not None and len(self.records) + self.held >= self.cap_calls:
                raise BudgetSpent(f"the test's budget of {self.cap_calls} calls is spent")
            self.held += 1
        settled = []

        def settle(call: CallRecord) -> None:
            with self.lock:
                self.held -= 1
                self.records.append(call)
            settled.append(call)

        try:
            yield settle
        finally:
            if not settled:
                with self.lock:
                    self.held -= 1

    def record(self, call: CallRecord) -> None:
        with self.lock:
            self.records.append(call)

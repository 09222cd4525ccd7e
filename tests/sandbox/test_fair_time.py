"""An agent is charged only for its own time, however busy the machine.

Busy processes spin on every core and a thread creates and removes containers in a loop (the
daemon's busiest work) while several docker matches of instant agents (the split-or-steal starter
agent, under a millisecond a call) run at once, frozen between turns and started from the warm
pool as ranked matches are. With the controller's clock, delays outside the agent (the daemon,
the shim, the scheduler) were charged to it and starters forfeited by timeout; with the harness's
window none may. An agent that really sleeps past its 2 s budget in the same storm still forfeits.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from devtools.load import container_churn
from games.core import MatchRecord, MatchSettings, Reason, play_match
from sandbox import (
    SandboxLimits,
    create_handle,
    drain_warm_pool,
    engine,
    host_wait,
    start_warm_pool,
)
from sandbox.engine import docker_client
from tests.conftest import assert_no_container_left
from tests.sandbox.conftest import own_container_labels, require_docker

pytestmark = [pytest.mark.slow, pytest.mark.docker]

ROOT = Path(__file__).resolve().parents[2]
STARTER = (ROOT / "games" / "split_or_steal" / "starter_agent.py").read_text()
#: 20 rounds of 3 messages and 2 choices: 100 turns and 80 round hooks a match.
CONFIG = {"rounds": 20, "messages_per_round": 3}
INSTANT_MATCHES = 4
#: The starter, except that its first on_round_end really sleeps 2.5 s, past the 2 s budget.
SLEEPER = (
    STARTER
    + """

_Starter = Agent


class Agent(_Starter):
    def on_round_end(self, round_result):
        super().on_round_end(round_result)
        if not getattr(self, "slept", False):
            self.slept = True
            __import__("time").sleep(2.5)
"""
)
CHURN_LABEL = "arena.sandbox.test-churn"


@pytest.fixture
def storm() -> Iterator[dict[str, int]]:
    """Busy processes on every core and containers created and removed in a loop."""
    require_docker()
    busy = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(os.cpu_count() or 2)
    ]
    try:
        with container_churn(SandboxLimits().image, {CHURN_LABEL: "1"}) as counts:
            start_warm_pool(SandboxLimits(), 2 * INSTANT_MATCHES)
            try:
                yield counts
            finally:
                for process in busy:
                    process.kill()
                    process.wait()
    finally:
        drain_warm_pool()
    assert_no_container_left()


def _match(sources: tuple[str, str]) -> MatchRecord:
    handles = [
        create_handle(source, name=f"seat{i}", limits=SandboxLimits())
        for i, source in enumerate(sources)
    ]
    return play_match("split-or-steal", handles, seed=5, config=CONFIG, settings=MatchSettings())


def test_instant_agents_are_never_charged_a_timeout_under_load_and_churn(
    storm: dict[str, int],
) -> None:
    games = [(STARTER, STARTER)] * INSTANT_MATCHES + [(SLEEPER, STARTER)]
    with ThreadPoolExecutor(max_workers=len(games)) as pool:
        records = list(pool.map(_match, games))
    assert storm["containers"] > 0, "the churn never ran"
    *instant, sleeper = records
    for record in instant:
        assert record.platform_error is None, record.platform_error
        assert [str(s.reason) for s in record.seats] == ["normal", "normal"], (
            [s.detail for s in record.seats],
            [e for e in record.log if e.get("error")],
        )
        assert record.turns == 100
        calls = [e for e in record.log if e.get("wall_ms") is not None]
        assert all(e["elapsed_ms"] <= e["wall_ms"] for e in calls)
    assert sleeper.platform_error is None, sleeper.platform_error
    assert (str(sleeper.seats[0].reason), str(sleeper.seats[1].reason)) == (
        "timeout",
        "normal",
    ), ([s.detail for s in sleeper.seats], [e for e in sleeper.log if e.get("error")])
    assert "did not answer within 2 s" in sleeper.seats[0].detail
    late = next(e for e in sleeper.log if e.get("seat") == 0 and e.get("error"))
    assert late["method"] == "on_round_end"
    # Charged its own 2.5 s (or stopped at the backstop): either way, over its budget.
    assert (late["elapsed_ms"] or late["wall_ms"]) > 2000


#: Spins 300 ms of its own CPU time in each on_turn: what it is due to be charged.
SPINNER = """
import time

GAME = "simple-card"


class Agent:
    def on_turn(self, state):
        began = time.process_time()
        while time.process_time() - began < 0.3:
            pass
        return {"type": "play_card", "card": state["hand"][0]}
"""


@contextlib.contextmanager
def other_sandboxes_spinning(count: int) -> Iterator[None]:
    """``count`` containers of the sandbox image spinning on a CPU each, every one in a cgroup of
    its own as other matches' agents are (busy processes in one cgroup can weigh as one against
    the agent's and take nothing from it)."""
    api = docker_client().api
    labels = own_container_labels(600)
    spinning = []
    try:
        for _ in range(count):
            spinning.append(
                api.create_container(
                    SandboxLimits().image,
                    command=["python3", "-c", "while True: pass"],
                    labels=labels,
                    host_config=api.create_host_config(network_mode="none"),
                )["Id"]
            )
            api.start(spinning[-1])
        yield
    finally:
        for cid in spinning:
            engine.current().remove_now(cid)


def test_a_loaded_host_is_not_charged_to_an_agent_that_computes() -> None:
    """Two spinning sandboxes a core take the CPU from the agent's: its 300 ms of computing take
    more wall time. It is charged what it ran (and what its own processes and its quota cost
    it), not what the host's other programs took."""
    require_docker()
    with other_sandboxes_spinning(2 * (os.cpu_count() or 2)):
        handles = [
            create_handle(SPINNER, name="spinner", limits=SandboxLimits()),
            create_handle(SPINNER.replace("0.3", "0.0"), name="quick", limits=SandboxLimits()),
        ]
        record = play_match("simple-card", handles, seed=3, settings=MatchSettings(timed=False))
    assert record.platform_error is None, record.platform_error
    turns = [e for e in record.log if e.get("seat") == 0 and e["method"] == "on_turn"]
    assert len(turns) == 3
    for turn in turns:
        # Its own computing is charged in full; the host's delays are not.
        assert turn["cpu_ms"] >= 290, turn
        assert 0.9 * turn["cpu_ms"] <= turn["elapsed_ms"] <= 1.3 * turn["cpu_ms"] + 50, turn
    waited = [t["wall_ms"] - t["elapsed_ms"] for t in turns]
    if max(waited) <= 100:
        # The charges above held; but where the host's scheduler keeps the container's share
        # whatever runs beside it (a cgroup of its own weighed against the busy loops as one),
        # the loops took nothing from the agent and there was no wait to take off.
        pytest.skip(f"the busy loops took no CPU from the sandbox on this host: {waited}")


#: The starter, except that in its first three turns it asks the model twice (1.2 s each: more
#: model time in one turn than its whole 2 s budget) through the gateway with the openai SDK.
MODEL_CALLER = (
    "from openai import OpenAI\n\nclient = OpenAI()  # at load, as the SDK's docs write it\n"
    + STARTER
    + """

_Plain = Agent


class Agent(_Plain):
    def on_turn(self, state):
        self.asked = getattr(self, "asked", 0) + 1
        if self.asked <= 3:
            for _ in range(2):
                reply = client.chat.completions.create(
                    model="tiny", messages=[{"role": "user", "content": "split or steal?"}]
                )
                print("MODEL", reply.choices[0].message.content)
        return super().on_turn(state)
"""
)
#: The starter, except that its first three turns spin the CPU for 1.2 s of its own time.
BUSY = (
    STARTER
    + """

_Idle = Agent


class Agent(_Idle):
    def on_turn(self, state):
        self.spun = getattr(self, "spun", 0) + 1
        if self.spun <= 3:
            end = __import__("time").perf_counter() + 1.2
            while __import__("time").perf_counter() < end:
                pass
        return super().on_turn(state)
"""
)


def test_a_model_calling_agent_beside_a_busy_one_is_charged_only_its_own_time(
    storm: dict[str, int],
) -> None:
    from devtools.fakemodel import FakeModel
    from llm_seat import Endpoint
    from llm_seat.gateway import ClientBackend, GatewayModel
    from sandbox import ModelGateway

    with FakeModel(default=("slow", 1.2, "split")) as fake:
        endpoint = Endpoint(name="tiny", base_url=fake.base_url, model="fake")
        gateway = ModelGateway(ClientBackend([GatewayModel(name="tiny", endpoint=endpoint)]))
        handles = [
            create_handle(MODEL_CALLER, name="caller", limits=SandboxLimits(), gateway=gateway),
            create_handle(BUSY, name="busy", limits=SandboxLimits()),
        ]
        record = play_match(
            "split-or-steal", handles, seed=5, config=CONFIG, settings=MatchSettings()
        )
    assert record.platform_error is None, record.platform_error
    assert [str(s.reason) for s in record.seats] == ["normal", "normal"], [
        (e["method"], e.get("elapsed_ms"), e.get("wall_ms"), e.get("model_ms"))
        for e in record.log
        if e.get("error")
    ]
    assert record.turns == 100
    asked = [
        e for e in record.log if e.get("seat") == 0 and "MODEL split" in (e.get("stdout") or "")
    ]
    assert len(asked) == 3
    for entry in asked:
        # 2.4 s waited on the model, more than the whole budget, none of it charged.
        assert entry["wall_ms"] > 2400 > 2000 > entry["elapsed_ms"]
    assert gateway.calls == 6


#: Computes 1.5 s of its own CPU time in each on_turn: within its 2 s budget.
THINKER = SPINNER.replace("< 0.3", "< 1.5")
#: Computes forever in its first on_turn.
LOOPER = SPINNER.replace("while time.process_time() - began < 0.3:", "while True:")


def _against_a_quick_one(source: str, name: str) -> MatchRecord:
    """A simple-card match of ``source`` against an agent that answers at once."""
    return play_match(
        "simple-card",
        [
            create_handle(source, name=name, limits=SandboxLimits()),
            create_handle(SPINNER.replace("0.3", "0.0"), name="quick", limits=SandboxLimits()),
        ],
        seed=3,
    )


def test_an_agent_computing_most_of_its_budget_is_not_cut_while_other_sandboxes_take_the_cpu() -> (
    None
):
    """Two spinning sandboxes a core: an agent computing 1.5 s of its own a turn gets at most
    two fifths of a core and takes over the budget plus grace (3 s) of wall time. The referee's
    backstop waits on by the time the host kept its threads from a CPU, so it is charged its
    1.5 s and plays to the end; one that computes forever is still cut as its own timeout, once
    it has run the backstop's CPU (however slowly the host lets it, within the wall bound)."""
    require_docker()
    with other_sandboxes_spinning(2 * (os.cpu_count() or 2)):
        thinker = _against_a_quick_one(THINKER, "thinker")
        looper = _against_a_quick_one(LOOPER, "looper")
    assert thinker.platform_error is None, thinker.platform_error
    assert [s.reason for s in thinker.seats] == [Reason.NORMAL, Reason.NORMAL], (
        thinker.seats,
        [e for e in thinker.log if e.get("seat") == 0],
    )
    turns = [e for e in thinker.log if e.get("seat") == 0 and e["method"] == "on_turn"]
    assert len(turns) == 3
    for turn in turns:
        assert turn["cpu_ms"] >= 1490 and turn["elapsed_ms"] <= 2000, turn
    # The host's load held it past the old backstop at least once: the extension was needed.
    assert max(turn["wall_ms"] for turn in turns) > 3000, turns

    assert looper.platform_error is None, looper.platform_error
    assert looper.seats[0].reason == Reason.TIMEOUT, looper.seats
    cut = next(e for e in looper.log if e.get("seat") == 0 and e["method"] == "on_turn")
    assert cut["wall_ms"] <= host_wait.MAX_WALL_FACTOR * 3000 + 500, cut
    assert cut["host_wait"]["ran_ms"] >= 2900, cut


def test_an_agent_the_host_starves_past_the_wall_bound_is_the_platforms_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Six spinning sandboxes a core leave an agent computing 1.5 s about a seventh of a core:
    10 s of wall time. With the call's wall bound lowered to two backstops (6 s; it is ten, 30 s,
    on a real worker, which takes a host far busier than a test can make) its threads have run
    under a backstop of CPU and waited most of the call: the machine gave it no time, and the
    match ends as the platform's failure (not rated, played again), never the agent's
    timeout."""
    require_docker()
    monkeypatch.setattr(host_wait, "MAX_WALL_FACTOR", 2.0)
    with other_sandboxes_spinning(6 * (os.cpu_count() or 2)):
        record = _against_a_quick_one(THINKER, "thinker")
    assert record.platform_error is not None and "too busy" in record.platform_error, record
    assert all(s.reason != Reason.TIMEOUT for s in record.seats), record.seats

"""The hostile-agent suite (docs/sandbox.md): one agent file per attack in ``hostile/``, and the
variants of one attack written from a template in ``hostile_variants``.

Each file says what it does in its docstring and what must happen in ``EXPECT`` (read here with
``ast``, never imported): the hostile seat's ``reason`` (and ``detail`` text), text its stdout must
show (proof the attack ran) or must not show (proof it failed), ``alone`` to run it while no other
match runs, ``repeat`` to play it that many times in a row (every record is checked),
``wall_over_charged_ms`` for a call whose controller wall time must exceed the time charged by at
least that much (a forged window, logged as such), ``gateway`` to give the hostile agent a model
gateway (its figures: ``cap_calls`` a budget in calls, ``calls_per_turn``, ``read_timeout_s``)
over an instant loopback fake model, and ``gateway_records`` for the exact number of calls that
must reach the model and the ledger. ``EXPECT["process"]``, when
present, overrides those for the process backend and opts the file in there; files without it
are docker only (most attacks only mean something against real isolation).

Every match is simple-card against a small sandboxed opponent, with the real 2 s budget. For each
file the test checks the outcome and reason, that the opponent played every turn without an error
and won if the hostile agent forfeited, that no call was charged more than the controller saw,
that no container is left, and that nothing the attacks aim at appeared on the host. The matches
run a few at a time to keep the suite short. The docker matches take their containers from a
warm pool, as the platform does, so the pooled containers are what the attacks meet.
"""

from __future__ import annotations

import ast
import gc
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from devtools.fakemodel import FakeModel
from games.core import MatchRecord, MatchSettings, play_match
from llm_seat import Endpoint
from llm_seat.gateway import ClientBackend, GatewayModel
from sandbox import (
    ModelAllowance,
    ModelGateway,
    SandboxLimits,
    create_handle,
    drain_warm_pool,
    start_warm_pool,
)
from tests.sandbox.conftest import CountingHooks, docker_available, require_docker
from tests.sandbox.hostile_variants import VARIANTS

HOSTILE = Path(__file__).resolve().parent / "hostile"
#: Every hostile agent by name: the files of ``hostile/`` and the template variants.
FILES = sorted([p.stem for p in HOSTILE.glob("*.py")] + list(VARIANTS))
#: Set in the worker's environment during the suite; no agent may ever print it.
SECRET = "SECRET_VALUE_d41d8cd98f00"
#: Paths the filesystem attacks write to; none may exist on the host afterwards.
HOST_PATHS = ("/arena-hostile-pwned", "/etc/arena-hostile-pwned", "/tmp/fill-0", "/tmp/tool")
CONCURRENT_MATCHES = 4
#: Warm containers kept ready during the docker suite.
POOL_SIZE = 4

OPPONENT = """
import time


class Agent:
    GAME = "simple-card"
    SLEEP_S = {sleep}

    def on_turn(self, state):
        time.sleep(self.SLEEP_S)
        print("opponent played round", state["round"])
        return {{"type": "play_card", "card": min(state["hand"])}}
"""


def source(name: str) -> str:
    """The agent's source text: a template variant's, or the file's."""
    if name in VARIANTS:
        return VARIANTS[name].source
    return (HOSTILE / f"{name}.py").read_text(encoding="utf-8")


def expectation(name: str, backend: str) -> dict[str, Any] | None:
    """The file's ``EXPECT`` for ``backend``; ``None`` when the file does not run there."""
    tree = ast.parse(source(name))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "EXPECT" for t in node.targets
        ):
            expect: dict[str, Any] = ast.literal_eval(node.value)
            break
    else:
        raise AssertionError(f"hostile/{name}.py has no EXPECT")
    if backend == "docker":
        return expect
    if "process" not in expect:
        return None
    return {**{k: v for k, v in expect.items() if k != "process"}, **expect["process"]}


def play_all(name: str, backend: str) -> list[MatchRecord]:
    """The file's matches: one, or ``repeat`` in a row."""
    expect = expectation(name, backend) or {}
    return [play(name, backend) for _ in range(int(expect.get("repeat", 1)))]


_fake_model: FakeModel | None = None
_fake_model_lock = threading.Lock()
#: The ledger of each hostile gateway match: (file, backend) -> one list of calls a match.
LEDGERS: dict[tuple[str, str], list[list[Any]]] = {}


def hostile_gateway(spec: dict[str, Any]) -> tuple[ModelGateway, CountingHooks]:
    """A gateway over one instant loopback model shared by the suite, with its own ledger."""
    global _fake_model
    with _fake_model_lock:
        if _fake_model is None:
            _fake_model = FakeModel(default=("answer", "ok")).__enter__()
    hooks = CountingHooks(cap_calls=spec.get("cap_calls"))
    endpoint = Endpoint(name="tiny", base_url=_fake_model.base_url, model="fake")
    backend = ClientBackend([GatewayModel(name="tiny", endpoint=endpoint, hooks=hooks)])
    allowance = ModelAllowance(calls_per_turn=spec.get("calls_per_turn", 32))
    gateway = ModelGateway(
        backend, allowance=allowance, read_timeout_s=spec.get("read_timeout_s", 5.0)
    )
    return gateway, hooks


def play(name: str, backend: str) -> MatchRecord:
    """One match: the hostile file in seat 0, the opponent in seat 1, both sandboxed."""
    expect = expectation(name, backend) or {}
    limits = SandboxLimits()
    opponent = OPPONENT.format(sleep=expect.get("opponent_sleep_s", 0))
    gateway, hooks = (None, None)
    if "gateway" in expect:
        gateway, hooks = hostile_gateway(expect["gateway"])
    handles = [
        create_handle(source(name), name=name, backend=backend, limits=limits, gateway=gateway),
        create_handle(opponent, name="opponent", backend=backend, limits=limits),
    ]
    record = play_match("simple-card", handles, seed=7, settings=MatchSettings())
    if hooks is not None:
        LEDGERS.setdefault((name, backend), []).append(list(hooks.records))
    return record


def _stdout(record: MatchRecord, seat: int) -> str:
    return "".join(e.get("stdout") or "" for e in record.log if e.get("seat") == seat)


#: Descriptors the count may be above its start without a leak: a connection a background
#: thread may hold.
FD_SLACK = 2


def _settled_fds(*, at_most: int, wait_s: float = 5.0) -> int:
    """``_open_fds`` once it is ``at_most`` or less, or its last count after ``wait_s``.

    The suite's fake model server runs in this process: when a finished gateway's client closes
    its connections (on collection), the server's handler threads close their ends a moment
    later, so a count taken at once can see them. A leak stays; those go within milliseconds.
    """
    deadline = time.monotonic() + wait_s
    while True:
        count = _open_fds()
        if count <= at_most or time.monotonic() > deadline:
            return count
        time.sleep(0.1)


def _open_fds() -> int:
    """This process's open descriptors, once the Docker client's idle connections are closed.

    docker-py keeps a connection pool per URL (every container has its own URLs), up to 25 pools
    of up to 10 connections: idle connections that say nothing about a leak. Closing them first
    (the client opens new ones when next used) leaves only what the sandbox itself holds open.
    """
    from sandbox.engine import docker_client, wait_for_removals

    wait_for_removals()
    docker_client().api.close()
    gc.collect()  # a finished gateway's model client closes its connections when collected
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture(scope="module")
def docker_results() -> dict[str, Any]:
    """Every docker hostile match, run a few at a time, with the worker's state around them."""
    if not docker_available():
        return {}
    os.environ["ARENA_HOSTILE_SECRET"] = SECRET
    try:
        with ThreadPoolExecutor(max_workers=CONCURRENT_MATCHES) as pool:
            # A few matches first, so that whatever is opened once per process is open before the
            # count (without the warm pool, whose idle containers hold descriptors of their own
            # until it drains).
            list(pool.map(lambda _: play("close_stdout", "docker"), range(CONCURRENT_MATCHES)))
            # The suite's own fake model, whose sockets are the test's, not the sandbox's.
            hostile_gateway({})
            fds_before = _open_fds()
            start_warm_pool(SandboxLimits(), POOL_SIZE)
            together = [n for n in FILES if not expectation(n, "docker").get("alone")]
            records = dict(
                zip(together, pool.map(lambda n: play_all(n, "docker"), together), strict=True)
            )
        # Attacks whose outcome depends on getting the CPU when they need it run on their own.
        records.update({n: play_all(n, "docker") for n in FILES if n not in records})
        drain_warm_pool()
        fds_after = _settled_fds(at_most=fds_before + FD_SLACK)
    finally:
        os.environ.pop("ARENA_HOSTILE_SECRET", None)
        drain_warm_pool()
    from sandbox.pool import own_containers

    left = own_containers()
    return {"records": records, "fds": (fds_before, fds_after), "left": left}


def check(
    records: list[MatchRecord], expect: dict[str, Any], name: str, backend: str = "docker"
) -> None:
    """The assertions every hostile match must pass, for each of the file's matches."""
    for record in records:
        check_one(record, expect, name)
    if "gateway_records" in expect:
        for ledger in LEDGERS[(name, backend)]:
            assert len(ledger) == expect["gateway_records"], f"{name}: {len(ledger)} calls"
            assert all(call.outcome == "answered" for call in ledger)


def check_one(record: MatchRecord, expect: dict[str, Any], name: str) -> None:
    """The assertions one hostile match must pass."""
    assert record.platform_error is None, record.platform_error
    hostile, opponent = record.seats
    assert str(hostile.reason) == expect["reason"], f"{name}: {hostile.reason}: {hostile.detail}"
    if "detail" in expect:
        assert expect["detail"] in hostile.detail, hostile.detail
    stdout = _stdout(record, 0)
    for text in expect.get("stdout_has", []):
        assert text in stdout, f"{name} never printed {text!r}: {stdout[:2000]!r}"
    for text in expect.get("stdout_lacks", []):
        assert text not in stdout, f"{name} printed {text!r}: {stdout[:2000]!r}"
    assert SECRET not in stdout
    # The opponent is unharmed: it played every turn it was asked for, without an error.
    assert str(opponent.reason) == "normal"
    if expect["reason"] != "normal":
        assert str(opponent.outcome) == "win"
    opponent_calls = [e for e in record.log if e.get("seat") == 1 and e["method"] == "on_turn"]
    assert all(e.get("error") is None for e in opponent_calls)
    assert _stdout(record, 1).count("opponent played") == len(opponent_calls)
    for path in HOST_PATHS:
        assert not os.path.exists(path), f"{name} changed the host: {path} exists"
    # No call is charged more than the controller itself waited for it.
    timed = [e for e in record.log if e.get("wall_ms") is not None and e.get("elapsed_ms")]
    assert all(e["elapsed_ms"] <= e["wall_ms"] for e in timed), name
    if "wall_over_charged_ms" in expect:
        gap = max(e["wall_ms"] - e["elapsed_ms"] for e in timed if e.get("seat") == 0)
        assert gap >= expect["wall_over_charged_ms"], f"{name}: the log hides the forgery"


@pytest.mark.docker
@pytest.mark.parametrize("name", FILES)
def test_hostile_agent_in_docker(name: str, docker_results: dict[str, Any]) -> None:
    require_docker()
    check(docker_results["records"][name], expectation(name, "docker") or {}, name)


@pytest.mark.docker
def test_the_worker_is_unharmed_and_nothing_is_left(docker_results: dict[str, Any]) -> None:
    require_docker()
    assert docker_results["left"] == [], "sandbox containers were left behind"
    before, after = docker_results["fds"]
    # A leak of one descriptor per container would show as one per file and more (every match
    # uses two containers).
    assert after - before <= FD_SLACK, f"descriptors leaked: {before} -> {after}"


PROCESS_FILES = [n for n in FILES if expectation(n, "process") is not None]


@pytest.fixture(scope="module")
def process_results() -> dict[str, list[MatchRecord]]:
    """The process-backend subset, a few at a time like the docker one."""
    with ThreadPoolExecutor(max_workers=CONCURRENT_MATCHES) as pool:
        records = pool.map(lambda n: play_all(n, "process"), PROCESS_FILES)
        return dict(zip(PROCESS_FILES, records, strict=True))


# Every hostile agent played out in the process backend (the module's fixture), busy loops
# included: about 14 s of CPU, the most of any file make test-fast ran. Out of it; the sandbox's
# tests run whole before a commit that touches the sandbox.
@pytest.mark.slow
@pytest.mark.parametrize("name", PROCESS_FILES)
def test_hostile_agent_in_the_process_backend(
    name: str, process_results: dict[str, list[MatchRecord]]
) -> None:
    expect = expectation(name, "process")
    assert expect is not None
    check(process_results[name], expect, name, "process")

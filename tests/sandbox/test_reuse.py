"""Reused containers (docs/sandbox.md, "Reused containers"): nothing crosses from one match of a
submission to its next in the same container, and a container is reused only when it may be.

The hostile files ``hostile/reuse_*.py`` each play two matches in a row under one reuse key, so
the second match meets the container the first left (their ``EXPECT["reuse"]`` says whether it
must be the same container, ``kept``, a new one, ``discarded``, or either, ``any``); both
matches pass every check of the hostile suite (``test_hostile.check_one``), and each file's
agent looks, at its start, for what the first one left.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from games.core import MatchRecord, MatchSettings, play_match
from sandbox import SandboxLimits, create_handle, discard_reused, drain_reused
from sandbox.docker_handle import DockerAgentHandle
from tests.conftest import assert_no_container_left
from tests.sandbox.conftest import PLAY_HIGHEST, agent_source, docker_available, require_docker
from tests.sandbox.test_hostile import OPPONENT, check_one, expectation, source

pytestmark = pytest.mark.docker

HOSTILE = Path(__file__).resolve().parent / "hostile"
REUSE_FILES = sorted(p.stem for p in HOSTILE.glob("reuse_*.py"))
PLAIN = agent_source(PLAY_HIGHEST)


@pytest.fixture(autouse=True)
def _no_container_left() -> Iterator[None]:
    yield
    if docker_available():
        drain_reused()
        assert_no_container_left()


def play(
    agent: str, key: str | None, limits: SandboxLimits | None = None
) -> tuple[MatchRecord, DockerAgentHandle]:
    """One simple-card match: ``agent`` (under reuse ``key``) against a small opponent."""
    limits = limits or SandboxLimits()
    hostile = create_handle(agent, name="hostile", limits=limits, reuse_key=key)
    opponent = create_handle(OPPONENT.format(sleep=0), name="opponent", limits=limits)
    assert isinstance(hostile, DockerAgentHandle)
    record = play_match("simple-card", [hostile, opponent], seed=7, settings=MatchSettings())
    return record, hostile


def twice(name: str) -> list[tuple[MatchRecord, DockerAgentHandle, str | None]]:
    """The file's two matches in a row under one key: (record, handle, container id kept)."""
    key = f"test-{name}-{uuid.uuid4().hex[:8]}"
    played = []
    for _ in range(2):
        record, handle = play(source(name), key)
        # Still set after the match only when the container went to the reuse cache.
        played.append((record, handle, handle.container_id))
    return played


@pytest.fixture(scope="module")
def reuse_results() -> dict[str, list[tuple[MatchRecord, DockerAgentHandle, str | None]]]:
    if not docker_available():
        return {}
    try:
        with ThreadPoolExecutor(max_workers=3) as pool:
            return dict(zip(REUSE_FILES, pool.map(twice, REUSE_FILES), strict=True))
    finally:
        drain_reused()


def test_every_reuse_file_is_here() -> None:
    assert {
        "reuse_channel_snoop",
        "reuse_channel_socket",
        "reuse_cwd_umask_env",
        "reuse_daemon",
        "reuse_files",
        "reuse_fill_at_end",
        "reuse_tamper_supervisor",
    } <= set(REUSE_FILES)


@pytest.mark.parametrize("name", REUSE_FILES)
def test_nothing_crosses_to_the_next_match(name: str, reuse_results: dict[str, list]) -> None:
    require_docker()
    expect = expectation(name, "docker") or {}
    (first, _, kept_id), (second, second_handle, _) = reuse_results[name]
    check_one(first, expect, name)
    check_one(second, expect, name)
    if expect["reuse"] == "kept":
        assert kept_id is not None, f"{name}: its clean match's container was not kept"
        assert second_handle.reused, f"{name}: the second match did not get the first's container"
    elif expect["reuse"] == "discarded":
        assert kept_id is None, f"{name}: a container with signs of tampering was kept"
        assert not second_handle.reused


def test_a_container_serves_its_submission_only_and_at_most_n_matches() -> None:
    require_docker()
    limits = SandboxLimits(reuse_max_matches=3)
    key_a, key_b = f"test-a-{uuid.uuid4().hex[:8]}", f"test-b-{uuid.uuid4().hex[:8]}"
    _, first = play(PLAIN, key_a, limits)
    container = first.container_id
    assert container is not None
    # Another submission (the same source!) never gets it.
    _, other = play(PLAIN, key_b, limits)
    assert not other.reused and other.container_id != container
    _, second = play(PLAIN, key_a, limits)
    assert second.reused and second.container_id == container
    # The third match is its last: it is removed after it, and the fourth starts anew.
    record, third = play(PLAIN, key_a, limits)
    assert third.reused and str(record.seats[0].reason) == "normal"
    assert third.container_id is None
    _, fourth = play(PLAIN, key_a, limits)
    assert not fourth.reused
    assert discard_reused(key_a) == 1 and discard_reused(key_b) == 1


def test_a_crash_or_a_timeout_discards_the_container() -> None:
    require_docker()
    key = f"test-crash-{uuid.uuid4().hex[:8]}"
    crash = agent_source("def on_turn(self, state):\n    import os\n    os._exit(3)\n")
    record, handle = play(crash, key)
    assert str(record.seats[0].reason) == "crash"
    assert "exited with code 3" in record.seats[0].detail
    assert handle.container_id is None
    sleeper = agent_source("def on_turn(self, state):\n    import time\n    time.sleep(30)\n")
    record, handle = play(sleeper, key)
    assert str(record.seats[0].reason) == "timeout"
    assert handle.container_id is None
    _, after = play(PLAIN, key)
    assert not after.reused


def test_reuse_off_keeps_one_container_per_match() -> None:
    require_docker()
    limits = SandboxLimits(supervised=False)
    key = f"test-off-{uuid.uuid4().hex[:8]}"
    record, first = play(PLAIN, key, limits)
    assert str(record.seats[0].reason) == "normal"
    assert first.container_id is None
    _, second = play(PLAIN, key, limits)
    assert not second.reused


def test_only_the_supervisors_token_makes_a_line_its_report() -> None:
    """A line an agent writes to look like its supervisor's report (it holds the channel during
    its match) lacks the token, which only the supervisor and the controller know."""
    handle = DockerAgentHandle(PLAIN, name="x")
    handle._token, handle._spawn_id = "a" * 32, 4
    forged = b'{"id": 4, "type": "reset", "ok": true, "token": "' + b"b" * 32 + b'"}'
    assert not handle._agent_process_ended(forged)
    real = b'{"id": 4, "type": "reset", "ok": true, "token": "' + b"a" * 32 + b'", "exit_code": -9}'
    assert handle._agent_process_ended(real)
    assert handle._exit_description() == "it was killed by SIGKILL"
    handle._agent_exit = {"exit_code": -9, "oom_kills": 1}
    assert "ran out of memory" in handle._exit_description()

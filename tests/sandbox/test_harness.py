"""The harness stays in step with ``games.core.agent`` (it cannot import it)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from games.core import agent
from sandbox import harness

HARNESS = Path(harness.__file__)


def test_stdout_caps_match_games_core() -> None:
    assert harness.STDOUT_CAP_PER_CALL_BYTES == agent.STDOUT_CAP_PER_CALL_BYTES
    assert harness.STDOUT_CAP_PER_MATCH_BYTES == agent.STDOUT_CAP_PER_MATCH_BYTES
    assert harness.STDOUT_CUT_MARK == agent.STDOUT_CUT_MARK


def test_lifecycle_methods_match_games_core() -> None:
    assert harness.LIFECYCLE_METHODS == agent.LIFECYCLE_METHODS


SAMPLES = [
    {"id": 3, "type": "call", "method": "on_turn", "payload": {"hand": [1, 2], "x": None}},
    {"nested": [[[{"a": [True, False, 1.5, -2e300, 10**30]}]]], "": "", "é": '\u2028 \x00 "\\'},
    ["unicode", "snow ☃", "emoji 😀", "lone \udc80 surrogate"],
    {1: "int key", 2.5: "float key", False: "bool key", None: "null key"},
    "top-level text",
    3.25,
    0,
    None,
    [],
    {},
]


@pytest.mark.parametrize("value", SAMPLES)
def test_the_harness_writes_json_exactly_as_json_dumps(value: object) -> None:
    assert harness._dumps(value) == json.dumps(value, allow_nan=False)


@pytest.mark.parametrize("value", SAMPLES)
def test_the_harness_reads_json_exactly_as_json_loads(value: object) -> None:
    text = json.dumps(value)
    for data in (text.encode(), f" \t{text}\r\n".encode()):
        assert harness._loads(data) == json.loads(data)
    assert harness._loads(b"[NaN, Infinity, -Infinity]")[1:] == [float("inf"), float("-inf")]


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (float("nan"), ValueError),
        ({"a": [float("inf")]}, ValueError),
        ({"a": {1, 2}}, TypeError),
        ({"a": b"bytes"}, TypeError),
    ],
)
def test_the_harness_refuses_what_json_dumps_refuses(value: object, error: type) -> None:
    with pytest.raises(error):
        json.dumps(value, allow_nan=False)
    with pytest.raises(error):
        harness._dumps(value)


def test_the_harness_refuses_a_cycle() -> None:
    cycle: list[object] = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="Circular"):
        harness._dumps(cycle)
    assert harness._dumps([1]) == "[1]"  # a failed call leaves nothing behind


@pytest.mark.parametrize("data", [b"", b"   ", b"{", b'{"a": 1} 2', b"[1,]", b'"\x01"', b"nul"])
def test_the_harness_refuses_what_json_loads_refuses(data: bytes) -> None:
    with pytest.raises(ValueError):
        json.loads(data)
    with pytest.raises(ValueError):
        harness._loads(data)


def test_the_supervisor_refuses_to_run_outside_a_container(tmp_path: Path) -> None:
    """Its sweep kills every process of its uid: anywhere but as pid 1 of a pid namespace that
    would be every process of the user running it."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-I", str(HARNESS), "--supervise"],
        input=b'{"id": 0, "type": "spawn"}\n',
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert b"only as a container's pid 1" in done.stderr
    assert done.stdout == b""


def test_the_sweep_empties_a_directory_whatever_the_agent_left(tmp_path: Path) -> None:
    from sandbox.harness import empty_directory

    locked = tmp_path / "locked" / "inner"
    locked.mkdir(parents=True)
    (locked / "file").write_text("x")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "kept").write_text("x")
    (tmp_path / "link").symlink_to(outside)
    (tmp_path / "plain").write_text("x")
    locked.chmod(0)
    locked.parent.chmod(0)
    assert empty_directory(str(tmp_path)) == []
    assert list(tmp_path.iterdir()) == []
    assert (outside / "kept").exists(), "the sweep followed a link out of its directory"


def test_only_the_wait_for_cpus_held_outside_the_sandbox_is_taken_off_the_window() -> None:
    ms = 1_000_000
    # (sandbox CPU used, throttled, this thread ran, this thread waited), before and after.
    start = (0, 0, 0, 0)
    # A loaded host: the thread ran 100 ms, waited 400 ms; nothing else of its own ran.
    assert harness._host_wait_ns(start, (100 * ms, 0, 100 * ms, 400 * ms)) == 400 * ms
    # Its own children (a fork bomb) used 300 ms meanwhile: only 100 ms of the wait was the host's.
    assert harness._host_wait_ns(start, (400 * ms, 0, 100 * ms, 400 * ms)) == 100 * ms
    # Its quota held it back 400 ms (it had used its CPU up): all of that wait is its own.
    assert harness._host_wait_ns(start, (100 * ms, 400 * ms, 100 * ms, 400 * ms)) == 0
    # The sandbox's total lags behind the thread's own counter: never a discount beyond the wait.
    assert harness._host_wait_ns(start, (50 * ms, 0, 100 * ms, 400 * ms)) == 400 * ms
    # No wait, no discount.
    assert harness._host_wait_ns(start, (100 * ms, 0, 100 * ms, 0)) == 0


def test_the_contention_counters_read_here_or_say_none() -> None:
    counters = harness._contention()
    assert counters is None or (len(counters) == 4 and all(c >= 0 for c in counters))
    window = harness._window(harness._mark())
    assert 0 <= window["elapsed_ms"] < 1000 and window["cpu_ms"] >= 0

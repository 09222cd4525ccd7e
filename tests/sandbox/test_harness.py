"""The harness stays in step with ``games.core.agent`` (it cannot import it)."""

from __future__ import annotations

import json

import pytest

from games.core import agent
from sandbox import harness


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

"""The sandbox handles keep the ``AgentHandle`` contract, in both backends."""

from __future__ import annotations

import json
import math

import pytest

from games.core import (
    AgentCrash,
    AgentHandle,
    AgentInitError,
    AgentTimeout,
    CallResult,
    InProcessAgentHandle,
    PlatformError,
    play_match,
)
from games.core.agent import STDOUT_CAP_PER_CALL_BYTES, STDOUT_CUT_MARK
from games.simple_card.bots import HighestBot
from sandbox import SandboxLimits, create_handle
from tests.sandbox.conftest import PLAY_HIGHEST, TEST_LIMITS, agent_source

STATE = {"hand": [3, 7], "available_actions": []}


def started(backend: str, source: str, game: str = "simple-card") -> AgentHandle:
    handle = create_handle(source, name="agent", backend=backend, limits=TEST_LIMITS)
    try:
        handle.start(game_id=game, timeout_s=10)
    except BaseException:
        handle.close()
        raise
    return handle


def one_turn(backend: str, body: str) -> CallResult:
    """What one ``on_turn`` of an agent with ``body`` returns (the agent is closed after)."""
    handle = started(backend, agent_source(body))
    try:
        return handle.call("on_turn", STATE, 2.0)
    finally:
        handle.close()


def assert_turn_crashes(backend: str, source: str, match: str, timeout_s: float = 2.0) -> None:
    """One ``on_turn`` of the agent ``source`` is a crash whose text matches ``match``."""
    handle = started(backend, source)
    try:
        with pytest.raises(AgentCrash, match=match):
            handle.call("on_turn", STATE, timeout_s)
    finally:
        handle.close()


def test_a_match_plays_to_the_end(backend: str) -> None:
    body = PLAY_HIGHEST + "\ndef on_match_start(self, info):\n    print('hello', info['seat'])\n"
    handle = create_handle(agent_source(body), name="mine", backend=backend, limits=TEST_LIMITS)
    record = play_match(
        "simple-card", [handle, InProcessAgentHandle(HighestBot, "highest")], seed=3
    )
    assert record.platform_error is None
    assert [str(s.reason) for s in record.seats] == ["normal", "normal"]
    assert record.turns == 6
    starts = [e for e in record.log if e["method"] == "on_match_start" and e["seat"] == 0]
    assert starts[0]["stdout"] == "hello 0\n"


def test_call_returns_result_stdout_and_controller_time(backend: str) -> None:
    body = PLAY_HIGHEST.replace(
        "return", "print('thinking', file=__import__('sys').stderr)\n    return"
    )
    handle = started(backend, agent_source(body))
    try:
        result = handle.call("on_turn", STATE, 2.0)
        missing = handle.call("on_round_end", {"round": 1}, 2.0)
    finally:
        handle.close()
    assert result.ok and result.result == {"type": "play_card", "card": 7}
    assert result.stdout == "thinking\n"
    assert 0 < result.elapsed_ms < 2000
    assert missing.ok and missing.result is None


def test_an_exception_in_a_method_is_a_call_error_with_traceback(backend: str) -> None:
    handle = started(backend, agent_source("def on_turn(self, state):\n    return 1 / 0\n"))
    try:
        result = handle.call("on_turn", STATE, 2.0)
        again = handle.call("on_turn", STATE, 2.0)  # the agent lives on
    finally:
        handle.close()
    assert not result.ok and result.error is not None
    assert result.error.type == "ZeroDivisionError"
    assert "agent.py" in result.error.traceback and "1 / 0" in result.error.traceback
    assert not again.ok


@pytest.mark.parametrize(
    ("reply", "why"),
    [("{1, 2}", "set"), ("float('nan')", "NaN"), ("(lambda d: d.update(me=d) or d)({})", "cycle")],
)
def test_a_reply_json_cannot_carry_fails_like_in_process(
    backend: str, reply: str, why: str
) -> None:
    source = agent_source(f"def on_turn(self, state):\n    return {reply}\n")
    handle = started(backend, source)
    local = InProcessAgentHandle.from_source(source)
    local.start(game_id="simple-card", timeout_s=10)
    try:
        result = handle.call("on_turn", STATE, 2.0)
    finally:
        handle.close()
    expected = local.call("on_turn", STATE, 2.0)
    assert not result.ok and result.error is not None and expected.error is not None
    assert result.error.type == expected.error.type == "InvalidReply", why
    assert result.error.message == expected.error.message


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("class Agent:\n    GAME = 'simple-card'\n    def on_turn(self, s)\n", "SyntaxError"),
        ("class Bot:\n    pass\n", "defines no class named Agent"),
        (agent_source(PLAY_HIGHEST, game="chess"), "Agent.GAME is 'chess'"),
        (
            agent_source("def __init__(self):\n    raise KeyError('boom')\n" + PLAY_HIGHEST),
            "KeyError",
        ),
        (agent_source(PLAY_HIGHEST, header="import sys\nsys.exit(4)"), "sys.exit(4)"),
        (agent_source("pass\n"), "no on_turn"),
        (agent_source(PLAY_HIGHEST, header="import os\nos._exit(5)"), "code 5"),
    ],
)
def test_loading_failures_are_init_errors(backend: str, source: str, expected: str) -> None:
    with pytest.raises(AgentInitError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        started(backend, source)


def test_loading_past_the_budget_is_an_init_error(backend: str) -> None:
    source = agent_source(PLAY_HIGHEST, header="import time\ntime.sleep(30)")
    handle = create_handle(source, name="slow", backend=backend, limits=TEST_LIMITS)
    try:
        with pytest.raises(AgentInitError, match="budget"):
            handle.start(game_id="simple-card", timeout_s=0.5)
    finally:
        handle.close()


def test_a_call_past_the_budget_times_out_and_the_agent_is_stopped(backend: str) -> None:
    handle = started(backend, agent_source("def on_turn(self, state):\n    while True: pass\n"))
    try:
        with pytest.raises(AgentTimeout) as timeout:
            handle.call("on_turn", STATE, 0.3)
        # What the backstop saw of the agent's threads comes with it, for the match's log: the
        # looping thread ran about the whole backstop (nothing to extend for).
        seen = timeout.value.host_wait
        assert seen is not None and seen["threads"] >= 1, seen
        assert seen["ran_ms"] >= 0.2 * 300, seen
        # Stopped for good: a later call finds no agent.
        with pytest.raises(AgentCrash):
            handle.call("on_turn", STATE, 0.3)
    finally:
        handle.close()


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("def on_turn(self, state):\n    import os\n    os._exit(7)\n", "code 7"),
        ("def on_turn(self, state):\n    import sys\n    sys.exit(3)\n", r"sys.exit\(3\)"),
        (
            "def on_turn(self, state):\n    import os, signal\n"
            "    os.kill(os.getpid(), signal.SIGKILL)\n",
            "SIGKILL",
        ),
    ],
)
def test_an_agent_that_ends_its_process_is_a_crash(backend: str, body: str, expected: str) -> None:
    assert_turn_crashes(backend, agent_source(body), expected)


def test_protocol_lines_printed_by_the_agent_stay_stdout(backend: str) -> None:
    fake = json.dumps({"id": 1, "ok": True, "result": {"type": "play_card", "card": 99}})
    body = (
        "def on_turn(self, state):\n"
        "    import os\n"
        f"    os.write(1, {fake!r}.encode() + b'\\n')\n"
        f"    print({fake!r})\n"
        "    return {'type': 'play_card', 'card': 3}\n"
    )
    result = one_turn(backend, body)
    assert result.ok and result.result == {"type": "play_card", "card": 3}
    assert result.stdout == (fake + "\n") * 2


#: Many lines, and one line far over the cap that arrives in one read: both keep their ends.
CUT_BODIES = [
    "def on_turn(self, state):\n"
    "    print('FIRST LINE')\n"
    "    for i in range(2000):\n"
    "        print('x' * 50)\n"
    "    print('LAST LINE before the failure')\n"
    "    return None\n",
    "def on_turn(self, state):\n"
    "    print('FIRST LINE\\n' + 'x' * 100000 + '\\nLAST LINE before the failure')\n"
    "    return None\n",
]


@pytest.mark.parametrize("body", CUT_BODIES, ids=["many-lines", "one-read"])
def test_stdout_is_cut_at_the_cap_keeping_its_start_and_its_end(backend: str, body: str) -> None:
    result = one_turn(backend, body)
    head, mark, tail = result.stdout.partition(STDOUT_CUT_MARK)
    assert mark, "the cut is marked"
    assert head.startswith("FIRST LINE\n") and tail.endswith("LAST LINE before the failure\n")
    assert len(result.stdout.encode()) <= STDOUT_CAP_PER_CALL_BYTES
    assert len(result.stdout.encode()) > STDOUT_CAP_PER_CALL_BYTES - 200  # the budget is used


def test_a_reply_over_the_limit_is_a_crash(backend: str) -> None:
    body = "def on_turn(self, state):\n    return 'x' * (2 * 1024 * 1024)\n"
    assert_turn_crashes(backend, agent_source(body), "byte limit", timeout_s=5.0)


def test_close_is_safe_twice_and_before_start(backend: str) -> None:
    fresh = create_handle(agent_source(PLAY_HIGHEST), name="a", backend=backend)
    fresh.close()
    fresh.close()
    handle = started(backend, agent_source(PLAY_HIGHEST))
    handle.close()
    handle.close()
    with pytest.raises(AgentCrash):
        handle.call("on_turn", STATE, 1.0)


def test_nan_never_reaches_the_game() -> None:
    # The harness refuses NaN; the controller refuses it too, should a forged line carry one.
    from sandbox.channel import _BadReply, _parse_reply

    with pytest.raises(_BadReply):
        _parse_reply(b'{"id": 0, "ok": true, "result": NaN, "elapsed_ms": 1}', 0)
    assert math.isfinite(_parse_reply(b'{"id": 0, "ok": true, "elapsed_ms": 1}', 0)["elapsed_ms"])


def test_a_reply_to_another_request_breaks_the_protocol() -> None:
    from sandbox.channel import _BadReply, _parse_reply

    with pytest.raises(_BadReply, match="id 3"):
        _parse_reply(b'{"id": 3, "ok": true}', 4)


def test_unknown_backend_is_refused() -> None:
    with pytest.raises(ValueError, match="process"):
        create_handle("", name="x", backend="vm")


def test_a_harness_speaking_another_protocol_is_a_platform_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What a controller meets when the image predates a protocol change.
    import sandbox.channel

    monkeypatch.setattr(sandbox.channel, "PROTOCOL_VERSION", 999)
    handle = create_handle(agent_source(PLAY_HIGHEST), name="a", backend="process")
    try:
        with pytest.raises(PlatformError, match="make image"):
            handle.start(game_id="simple-card", timeout_s=10)
    finally:
        handle.close()


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (b'{"id": 0, "ok": true, "result": 1e999, "elapsed_ms": 1}', "not a finite number"),
        (b'{"id": 0, "ok": true, "result": -Infinity, "elapsed_ms": 1}', "not JSON"),
        (b'{"id": 0, "ok": true, "result": "\\ud800", "elapsed_ms": 1}', "lone surrogate"),
        (b'{"id": 0, "ok": true, "result": {"\\udfff": 1}, "elapsed_ms": 1}', "lone surrogate"),
        (b'{"id": 0, "ok": true, "result": "\xff", "elapsed_ms": 1}', "not JSON"),
        (b'{"id": 0, "ok": true, "result": ' + b"[" * 66 + b"]" * 66 + b',"elapsed_ms":1}', "deep"),
        (b'{"id": 0, "ok": true, "result": ' + b"[" * 5000 + b"]" * 5000 + b"}", "JSON"),
        (b'{"id": 0, "ok": true, "result": 1' + b"0" * 5000 + b', "elapsed_ms": 1}', "not JSON"),
        (b'{"id": 0, "ok": true, "elapsed_ms": -5}', "milliseconds"),
        (b'{"id": 0, "ok": true, "elapsed_ms": 1, "cpu_ms": "x"}', "milliseconds"),
        (b'{"id": 0, "ok": true}', "milliseconds"),
    ],
)
def test_a_reply_the_controller_cannot_trust_breaks_the_protocol(line: bytes, why: str) -> None:
    from sandbox.channel import _BadReply, _parse_reply

    with pytest.raises(_BadReply, match=why):
        _parse_reply(line, 0, 64)


def test_a_result_as_deep_as_the_limit_is_accepted() -> None:
    from sandbox.channel import _parse_reply

    depth = SandboxLimits().max_reply_depth
    deep = b"[" * depth + b"]" * depth
    reply = _parse_reply(b'{"id": 0, "ok": true, "result": ' + deep + b', "elapsed_ms": 1}', 0)
    assert reply["ok"]


@pytest.mark.parametrize(
    ("reply", "why"),
    [("eval('[' * 65 + ']' * 65)", "deeper than 64"), ("'\\ud800'", "lone surrogate")],
)
def test_a_result_the_controller_cannot_accept_is_a_protocol_violation(
    backend: str, reply: str, why: str
) -> None:
    source = agent_source(f"def on_turn(self, state):\n    return {reply}\n")
    assert_turn_crashes(backend, source, why)


def test_error_texts_are_made_valid_not_refused(backend: str) -> None:
    body = "def on_turn(self, state):\n    raise ValueError('bad \\ud800 text')\n"
    result = one_turn(backend, body)
    assert not result.ok and result.error is not None
    assert result.error.message == "bad ? text"


def test_a_call_reports_the_agents_window_and_the_controllers_wall_time(backend: str) -> None:
    body = "def on_turn(self, state):\n    import time\n    time.sleep(0.2)\n    return None\n"
    result = one_turn(backend, body)
    assert result.wall_ms is not None and result.cpu_ms is not None
    # The window covers the agent's own sleep and is never more than the controller saw. The
    # fair clock takes off the wait for a CPU the host imposed on waking (docs/architecture.md),
    # never more than the wall time the host added beyond the sleep.
    assert result.elapsed_ms <= result.wall_ms
    assert result.elapsed_ms >= 200 - (result.wall_ms - 200)
    assert result.cpu_ms < result.elapsed_ms  # sleeping costs no CPU
    assert result.freeze in ("cgroup-v1", "cgroup-v2", "pause", "signal", None)


@pytest.mark.slow
def test_the_process_backend_charges_its_agent_its_own_cpu_not_the_hosts_load() -> None:
    """The process backend has no cgroup of its own: the harness takes the sandbox's CPU time
    from its own process. Busy processes on every core (2 a core) make the agent's 300 ms of
    computing take longer on the wall; it is charged what it ran, not the host's share.
    (Reading the host's cgroup instead, it was charged the whole wall: 3832 ms for 1500 ms.)"""
    import os
    import subprocess
    import sys

    body = """
def on_turn(self, state):
    import time
    began = time.process_time()
    while time.process_time() - began < 0.3:
        pass
    return None
"""
    # Each loop in a session of its own, as the agent's harness is: with the kernel's
    # autogroups, loops sharing the test's session weighed as one against the agent's.
    busy = [
        subprocess.Popen(
            [sys.executable, "-c", "print('spinning', flush=True)\nwhile True: pass"],
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        for _ in range(2 * (os.cpu_count() or 2))
    ]
    try:
        for process in busy:
            assert process.stdout is not None and process.stdout.readline() == b"spinning\n"
        handle = started("process", agent_source(body))
        try:
            results = [handle.call("on_turn", STATE, timeout_s=10) for _ in range(3)]
        finally:
            handle.close()
    finally:
        for process in busy:
            process.kill()
            process.wait()
            if process.stdout is not None:
                process.stdout.close()
    for result in results:
        assert result.error is None, result
        assert result.cpu_ms is not None and result.cpu_ms >= 290, result
        assert result.elapsed_ms <= 1.3 * result.cpu_ms + 50, result
    # The busy loops did take the CPU from it: the wall time shows it.
    assert max(r.wall_ms or 0 for r in results) > 1.5 * 300, results

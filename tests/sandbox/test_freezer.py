"""Freezing without the daemon: finding a container's cgroup freezer and using it.

The first tests build cgroup layouts in a temporary directory (the detection and the protocol of
each version); the docker tests freeze real containers on this host and check with the kernel.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from sandbox import SandboxLimits, create_handle
from sandbox.docker_handle import DockerAgentHandle, confirm_freezes
from sandbox.freezer import CgroupFreezer, find_cgroup_freezer
from tests.sandbox.conftest import PLAY_HIGHEST, agent_source, require_docker

CID = "0123abcd" * 8


def v1_tree(root: Path, relative: str, state: str = "THAWED") -> Path:
    (root / "freezer").mkdir(parents=True)
    (root / "freezer" / "cgroup.procs").write_text("")
    directory = root / "freezer" / relative
    directory.mkdir(parents=True)
    (directory / "freezer.state").write_text(state)
    return directory


def v2_tree(root: Path, relative: str, events: str = "populated 1\nfrozen 0\n") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "cgroup.controllers").write_text("cpu memory pids\n")
    directory = root / relative
    directory.mkdir(parents=True)
    (directory / "cgroup.freeze").write_text("0")
    (directory / "cgroup.events").write_text(events)
    return directory


@pytest.mark.parametrize(
    ("tree", "relative", "method"),
    [
        pytest.param(v1_tree, f"docker/{CID}", "cgroup-v1", id="cgroupfs-v1"),
        pytest.param(v2_tree, f"system.slice/docker-{CID}.scope", "cgroup-v2", id="systemd-v2"),
    ],
)
def test_the_container_cgroup_is_found(
    tmp_path: Path, tree: Callable[[Path, str], Path], relative: str, method: str
) -> None:
    directory = tree(tmp_path, relative)
    freezer = find_cgroup_freezer(CID, pid=None, root=str(tmp_path))
    assert freezer is not None
    assert (freezer.directory, freezer.method) == (directory, method)
    freezer.close()


def test_a_cgroup_parent_is_followed(tmp_path: Path) -> None:
    directory = v2_tree(tmp_path, f"arena.slice/{CID}")
    freezer = find_cgroup_freezer(CID, pid=None, cgroup_parent="/arena.slice", root=str(tmp_path))
    assert freezer is not None and freezer.directory == directory
    freezer.close()


def test_no_reachable_cgroup_means_no_freezer(tmp_path: Path) -> None:
    v2_tree(tmp_path, "docker/someone-else")
    assert find_cgroup_freezer(CID, pid=None, root=str(tmp_path)) is None
    assert find_cgroup_freezer(CID, pid=None, root=str(tmp_path / "missing")) is None


def test_a_proc_path_naming_another_container_is_not_trusted(tmp_path: Path) -> None:
    # Our own pid: its cgroup path does not name the container, so it must be ignored.
    import os

    v2_tree(tmp_path, "docker/someone-else")
    assert find_cgroup_freezer(CID, pid=os.getpid(), root=str(tmp_path)) is None


def test_v1_freeze_writes_frozen_and_reads_it_back(tmp_path: Path) -> None:
    directory = v1_tree(tmp_path, f"docker/{CID}")
    freezer = CgroupFreezer(directory, 1)
    # A regular file reads back what was written, as the kernel does once every task froze.
    assert freezer.freeze() is True
    assert (directory / "freezer.state").read_text().startswith("FROZEN")
    freezer.thaw()
    assert (directory / "freezer.state").read_text().startswith("THAWED")
    freezer.close()


def test_v2_freeze_waits_for_the_kernel_to_say_frozen(tmp_path: Path) -> None:
    frozen = CgroupFreezer(v2_tree(tmp_path / "a", "docker/x", "frozen 1\n"), 2)
    assert frozen.freeze() is True
    assert (frozen.directory / "cgroup.freeze").read_text().startswith("1")
    frozen.thaw()
    assert (frozen.directory / "cgroup.freeze").read_text().startswith("0")
    never = CgroupFreezer(v2_tree(tmp_path / "b", "docker/x", "frozen 0\n"), 2)
    assert never.freeze(confirm_s=0.05) is False  # not confirmed: reported, not hidden
    frozen.close()
    never.close()


def test_a_vanished_cgroup_is_not_an_error(tmp_path: Path) -> None:
    directory = v1_tree(tmp_path, f"docker/{CID}")
    freezer = CgroupFreezer(directory, 1)
    (directory / "freezer.state").unlink()
    directory.rmdir()
    freezer.thaw()  # the container ended: nothing to thaw
    freezer.close()


class _SlowV1Freezer(CgroupFreezer):
    """A v1 freezer on plain files whose tasks take ``delay_s`` to freeze, as a busy kernel's
    might: the state reads FREEZING until a timer writes FROZEN; every write is recorded."""

    def __init__(self, directory: Path, events: list[str], delay_s: float) -> None:
        super().__init__(directory, 1)
        self.events = events
        self.delay_s = delay_s
        self.timers: list[threading.Timer] = []

    def request_freeze(self) -> bool:
        (self.directory / "freezer.state").write_text("FREEZING")
        self.events.append(f"{self.directory.name} freezing")

        def frozen() -> None:
            self.events.append(f"{self.directory.name} frozen")
            (self.directory / "freezer.state").write_text("FROZEN")

        timer = threading.Timer(self.delay_s, frozen)
        self.timers.append(timer)
        timer.start()
        return True

    def thaw(self) -> None:
        self.events.append(f"{self.directory.name} thawed")
        super().thaw()


def _fake_handle(directory: Path, events: list[str], delay_s: float) -> DockerAgentHandle:
    handle = DockerAgentHandle("", name=directory.name, limits=SandboxLimits())
    handle._container_id = directory.name
    handle._freezer = _SlowV1Freezer(directory, events, delay_s)
    return handle


def test_a_lazy_freeze_is_confirmed_before_another_agent_is_thawed(tmp_path: Path) -> None:
    events: list[str] = []
    first = _fake_handle(v1_tree(tmp_path / "a", "first"), events, delay_s=0.2)
    second = _fake_handle(v1_tree(tmp_path / "b", "second"), events, delay_s=0.0)
    second._frozen = True  # waiting for its turn
    first._freeze_later()  # as after its call: requested, not waited for
    assert events == ["first freezing"]
    second._thaw()  # the next agent's call may only begin once the first is frozen
    assert events == ["first freezing", "first frozen", "second thawed"]
    assert first.freeze_failures == 0
    # Thawing the same agent again needs no confirmation of its own freeze.
    first._frozen = False
    first._freeze_later()
    first._thaw()
    assert events[-2:] == ["first freezing", "first thawed"]
    confirm_freezes()
    for handle in (first, second):
        freezer = handle._freezer
        assert isinstance(freezer, _SlowV1Freezer)
        freezer.close()
        for timer in freezer.timers:  # their last writes land before tmp_path goes
            timer.join(timeout=60)
            assert not timer.is_alive(), "a freezer timer never wrote its state"


def test_a_house_bot_plays_only_once_its_sandboxed_opponent_is_frozen(tmp_path: Path) -> None:
    from sandbox import trusted_handle

    events: list[str] = []
    agent = _fake_handle(v1_tree(tmp_path / "a", "agent"), events, delay_s=0.2)

    class Bot:
        def on_turn(self, state: dict[str, object]) -> dict[str, object]:
            events.append("bot plays")
            return {}

    bot = trusted_handle(Bot, name="house")
    bot.start(game_id="simple-card", timeout_s=2)
    agent._freeze_later()  # the agent's call returned: its freeze is requested
    assert bot.call("on_turn", {}, 2.0).ok
    assert events == ["agent freezing", "agent frozen", "bot plays"]
    assert agent._freezer is not None
    agent._freezer.close()


# --- real containers ---------------------------------------------------------------------------


@pytest.mark.docker
def test_a_waiting_agent_is_frozen_directly_and_thawed_for_its_call() -> None:
    require_docker()
    handle = create_handle(agent_source(PLAY_HIGHEST), name="a", limits=SandboxLimits())
    try:
        handle.start(game_id="simple-card", timeout_s=10)
        freezer = handle._freezer  # type: ignore[attr-defined]
        if freezer is None:
            pytest.skip("this host's container cgroups are not writable here: pause is used")
        assert freezer.is_frozen()
        result = handle.call("on_turn", {"hand": [2, 5]}, 3.0)
        assert result.ok and result.freeze == freezer.method
        confirm_freezes()  # what the next call of any other agent does first
        assert freezer.is_frozen()  # frozen again once it answered
    finally:
        handle.close()


@pytest.mark.docker
def test_docker_pause_is_the_fallback() -> None:
    require_docker()
    for limits in (
        SandboxLimits(freeze_method="pause"),
        SandboxLimits(cgroup_root="/nonexistent/cgroup"),
    ):
        handle = create_handle(agent_source(PLAY_HIGHEST), name="a", limits=limits)
        try:
            handle.start(game_id="simple-card", timeout_s=10)
            assert handle._is_paused()  # type: ignore[attr-defined]
            result = handle.call("on_turn", {"hand": [2, 5]}, 3.0)
            assert result.ok and result.freeze == "pause"
        finally:
            handle.close()


SPINNER = """
import threading
import time

GAPS = []


def spin():
    last = time.monotonic()
    while True:
        now = time.monotonic()
        if now - last > 0.002:
            GAPS.append((last, now))
        last = now


class Agent:
    GAME = "simple-card"

    def __init__(self):
        threading.Thread(target=spin, daemon=True).start()

    def on_turn(self, state):
        # Only pauses that could hold a 20 ms turn of the opponent: on a busy host the spinner is
        # also descheduled for a few ms now and then, and a cap on the count would drop the
        # frozen pause among those.
        # Taken, then only those removed: a gap the spinner appends meanwhile (it records the
        # frozen pause when it is thawed, as this call begins) stays for the next call.
        taken = GAPS[:]
        del GAPS[: len(taken)]
        return {"gaps": [g for g in taken if g[1] - g[0] >= 0.015]}
"""

OPPONENT_TURN = """
import time


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        began = time.monotonic()
        while time.monotonic() - began < 0.02:
            pass
        return {"window": [began, time.monotonic()]}
"""


@pytest.mark.docker
def test_a_waiting_agent_makes_no_progress_during_the_opponents_turns() -> None:
    """One agent's thread spins all the time and notes every pause in its own progress; the
    other agent computes for 20 ms a turn and notes when. Each of the opponent's turns must lie
    inside a pause of the spinner: it never ran while the opponent's call ran, although its
    freeze is only requested when it answers and confirmed before the opponent is thawed.
    (The monotonic clock is the host's in every container: Docker gives none a time namespace.)
    """
    require_docker()
    spinner = create_handle(SPINNER, name="spinner", limits=SandboxLimits())
    opponent = create_handle(OPPONENT_TURN, name="opponent", limits=SandboxLimits())
    try:
        for handle in (spinner, opponent):
            handle.start(game_id="simple-card", timeout_s=10)
        windows, gaps = [], []
        for _ in range(20):
            gaps += spinner.call("on_turn", {"hand": [1]}, 3.0).result["gaps"]
            windows.append(opponent.call("on_turn", {"hand": [1]}, 3.0).result["window"])
        # Twice: the last pause is noted by the spinner's thread once thawed, which may be
        # just after the first of these calls took the list (it then stays for the second).
        for _ in range(2):
            gaps += spinner.call("on_turn", {"hand": [1]}, 3.0).result["gaps"]
    finally:
        spinner.close()
        opponent.close()
    assert len(windows) == 20
    for began, ended in windows:
        assert any(start <= began and ended <= end for start, end in gaps), (
            f"the spinner ran during the opponent's turn {began:.6f}..{ended:.6f}"
        )

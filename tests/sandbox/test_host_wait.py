"""The backstop's extension for the host's load (``sandbox/host_wait.py``); a docker match under
that load is in test_fair_time.py."""

from __future__ import annotations

import os
import threading

from sandbox import host_wait

S = 1_000_000_000


def test_the_longest_wait_of_one_thread_counts_not_their_sum() -> None:
    mark = {1: (0, 0), 2: (0, 0)}
    now = {1: (S // 10, 2 * S), 2: (S // 10, 2 * S)}
    assert host_wait.extension_s(mark, now, 3.0) == 2.0


def test_a_thread_started_during_the_call_counts_from_zero() -> None:
    assert host_wait.extension_s({1: (0, 5 * S)}, {1: (0, 5 * S), 7: (0, S)}, 3.0) == 1.0


def test_the_extension_follows_the_wait_while_the_agent_is_under_its_cpu() -> None:
    # A thread that ran 1 s and waited 100 s: the host's doing, all of it (the channel bounds
    # the call's wall time, not this).
    assert host_wait.extension_s({1: (0, 0)}, {1: (S, 100 * S)}, 3.0) == 100.0


def test_a_call_at_its_wall_bound_is_starved_only_if_the_host_held_it() -> None:
    factor = host_wait.MAX_WALL_FACTOR
    held = int((factor - 1) * 3 * S)
    # Waited all but one backstop of the bound and ran 0.5 s: the machine's failure.
    assert host_wait.starved({1: (0, 0)}, {1: (S // 2, held)}, 3.0)
    # Waited as long, but its threads ran a backstop's worth between them: its own time is up.
    assert not host_wait.starved({1: (0, 0), 2: (0, 0)}, {1: (S, held), 2: (2 * S, 0)}, 3.0)
    # Waited less (it slept or blocked the rest): its own time.
    assert not host_wait.starved({1: (0, 0)}, {1: (S // 2, held - S)}, 3.0)


def test_none_once_the_threads_ran_a_backstops_worth_of_cpu() -> None:
    # Two threads of 1.5 s each: 3 s of CPU between them, the whole backstop.
    now = {1: (3 * S // 2, 4 * S), 2: (3 * S // 2, 0)}
    assert host_wait.extension_s({1: (0, 0), 2: (0, 0)}, now, 3.0) == 0.0


def test_the_kernel_counts_a_threads_cpu_and_wait() -> None:
    tid = threading.get_native_id()
    before = host_wait.thread_times([tid, 2**22 + 12345])  # the second is no thread
    sum(range(2_000_000))
    after = host_wait.thread_times([tid])
    assert list(before) == [tid]
    assert after[tid][0] > before[tid][0]
    assert host_wait.process_threads(os.getpid()) and tid in host_wait.process_threads(os.getpid())


def test_the_summary_says_what_a_timed_out_call_saw_of_the_threads() -> None:
    mark = {1: (100_000_000, 0), 2: (0, 5_000_000)}
    now = {1: (1_600_000_000, 1_400_000_000), 2: (0, 5_000_000), 3: (10_000_000, 2_000_000)}
    assert host_wait.summary(mark, now) == {
        "threads": 3,
        "threads_at_start": 2,
        "ran_ms": 1510.0,
        "longest_wait_ms": 1400.0,
    }
    # No thread could be read: the log says so (nothing was extended).
    assert host_wait.summary({}, {}) == {
        "threads": 0,
        "threads_at_start": 0,
        "ran_ms": 0.0,
        "longest_wait_ms": 0.0,
    }

"""How long the host's other programs kept a sandbox's threads from a CPU, read from outside it.

The referee's backstop is wall time on the controller: budget plus grace. On a loaded host (a
local model answering a judged game, other matches, a build) an agent that computes for most of
its budget takes twice that in wall time or more, and the backstop would cut it although its own
time, as the harness measures it, is within the budget. So the controller extends the backstop
by the time the sandbox's threads waited on a run queue during the call: the kernel counts it
per thread (``/proc/<tid>/schedstat``, its second field), outside the agent's reach, and a thread
that sleeps or waits for input does not accrue it. Only the longest wait of one thread counts
(an agent's own threads competing for its CPU quota do not add up), never more than
``MAX_FACTOR`` times the call's backstop, and none once the sandbox's threads have run a
backstop's worth of CPU: what an agent can gain by making itself wait is bounded, and it is
charged what the harness measures either way.

A CPU quota that holds the sandbox back (it used its share) is throttling, not a run-queue
wait: that stays the agent's own time.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

#: The backstop is extended by at most this many times its own length for the host's load.
MAX_FACTOR = 2.0

#: Thread ids -> (nanoseconds on a CPU, nanoseconds waiting on a run queue) so far.
Mark = dict[int, tuple[int, int]]


def thread_times(tids: Iterable[int]) -> Mark:
    """The CPU time and run-queue wait (ns) of each of these threads so far; a thread that is
    gone is left out."""
    times: Mark = {}
    for tid in tids:
        try:
            with open(f"/proc/{tid}/schedstat", "rb") as f:
                fields = f.read().split()
            times[tid] = (int(fields[0]), int(fields[1]))
        except (OSError, ValueError, IndexError):
            continue
    return times


def _since(mark: Mark, now: Mark) -> tuple[int, int]:
    """The CPU the threads ran between them since ``mark`` and the longest run-queue wait of
    one of them, in ns (a thread started since counts from zero)."""
    ran = sum(run - mark.get(tid, (0, 0))[0] for tid, (run, _) in now.items())
    longest = max((wait - mark.get(tid, (0, 0))[1] for tid, (_, wait) in now.items()), default=0)
    return max(0, ran), max(0, longest)


def extension_s(mark: Mark, now: Mark, backstop_s: float) -> float:
    """How far past ``backstop_s`` to wait, from the threads' times at the call's start
    (``mark``) and now: the longest run-queue wait of one thread since (a thread started since
    counts from zero), at most ``MAX_FACTOR`` × ``backstop_s``; nothing once the threads have
    run a backstop's worth of CPU between them (an agent that computes past its budget is
    over it by its own time, however slowly the host let it)."""
    ran, longest = _since(mark, now)
    if ran / 1e9 >= backstop_s:
        return 0.0
    return min(longest / 1e9, MAX_FACTOR * backstop_s)


def summary(mark: Mark, now: Mark) -> dict[str, float]:
    """What a timed-out call's log says of the agent's threads since ``mark``: how many were
    seen (0: none could be read, so nothing was extended), the CPU they ran and the longest
    run-queue wait of one of them, in ms."""
    ran, longest = _since(mark, now)
    return {
        "threads": len(now),
        "threads_at_start": len(mark),
        "ran_ms": round(ran / 1e6, 3),
        "longest_wait_ms": round(longest / 1e6, 3),
    }


def cgroup_threads(directory: Path, version: int) -> list[int]:
    """The thread ids of a cgroup (v1 ``tasks``, v2 ``cgroup.threads``); empty when unreadable."""
    name = "cgroup.threads" if version == 2 else "tasks"
    try:
        return [int(line) for line in (directory / name).read_text().split()]
    except (OSError, ValueError):
        return []


def process_threads(pid: int) -> list[int]:
    """The thread ids of a process (``/proc/<pid>/task``); empty when it is gone."""
    try:
        return [int(name) for name in os.listdir(f"/proc/{pid}/task")]
    except (OSError, ValueError):
        return []

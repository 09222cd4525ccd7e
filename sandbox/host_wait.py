"""How long the host's other programs kept a sandbox's threads from a CPU, read from outside it.

The referee's backstop is wall time on the controller: budget plus grace. On a loaded host (a
local model answering a judged game, other matches, a build) an agent that computes for most of
its budget takes twice that in wall time or more, and the backstop would cut it although its own
time, as the harness measures it, is within the budget. So the controller extends the backstop
by the time the sandbox's threads waited on a run queue during the call: the kernel counts it
per thread (``/proc/<tid>/schedstat``, its second field), outside the agent's reach, and a thread
that sleeps or waits for input does not accrue it. Only the longest wait of one thread counts
(an agent's own threads competing for its CPU quota do not add up), and none once the sandbox's
threads have run a backstop's worth of CPU: an agent that computes past its budget is cut by its
own CPU time however slowly the host lets it run, and it is charged what the harness measures
either way. So the bound is the agent's own progress, not a multiple of wall time: an agent that
gets a tenth of a core finishes a 1.5 s computation in 15 s, and one that loops forever is cut
once it has run the backstop's CPU (in 30 s at that share).

A call goes on for at most ``MAX_WALL_FACTOR`` backstops of wall time however busy the host is.
A call still waiting there while its threads ran less than a backstop of CPU (``starved``) is
the machine's failure, not the agent's: it was given too little of a CPU to use its time, so the
match is the platform's to end and play again, never the agent's forfeit. Nothing the agent does
inside its own cgroup lowers that cgroup's share of the host against others, so it cannot starve
itself there on purpose; it takes a host loaded past any sane sizing (docs/operations.md).

A CPU quota that holds the sandbox back (it used its share) is throttling, not a run-queue
wait: that stays the agent's own time.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

#: However busy the host, a call's wall time ends at this many times its backstop: as the
#: agent's timeout if its threads ran a backstop of CPU by then, else as the host's starvation.
MAX_WALL_FACTOR = 10.0

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
    counts from zero); nothing once the threads have run a backstop's worth of CPU between them
    (an agent that computes past its budget is over it by its own time, however slowly the host
    let it). The caller bounds the whole call at ``MAX_WALL_FACTOR`` backstops."""
    ran, longest = _since(mark, now)
    if ran / 1e9 >= backstop_s:
        return 0.0
    return longest / 1e9


def starved(mark: Mark, now: Mark, backstop_s: float) -> bool:
    """True when a call at its wall bound (``MAX_WALL_FACTOR`` backstops) got there by the
    host's doing: one of the sandbox's threads waited on a run queue for all but one backstop of
    it, while they ran less than a backstop's worth of CPU between them. The agent did not use
    its time, the machine gave it none. An agent that computed its backstop's worth, or slept or
    blocked through its time, is not starved: its call is its own timeout."""
    ran, longest = _since(mark, now)
    return ran / 1e9 < backstop_s and longest / 1e9 >= (MAX_WALL_FACTOR - 1) * backstop_s


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

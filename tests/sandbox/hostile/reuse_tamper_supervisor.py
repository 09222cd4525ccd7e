"""Changes what a process of its own uid may change about pid 1 (the supervisor, whose children
are the next matches' agents): its resource limits, its nice value, its CPU affinity.

Expected (docker): normal end (the match itself is not harmed). Played twice
(tests/sandbox/test_reuse.py): the supervisor notices and its container is not reused: the
second match plays in a new one.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['tried pid 1'], 'reuse': 'discarded'}
import os
import resource


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            for what, change in (
                ("nofile", lambda: resource.prlimit(1, resource.RLIMIT_NOFILE, (16, 16))),
                ("nice", lambda: os.setpriority(os.PRIO_PROCESS, 1, 19)),
                ("affinity", lambda: os.sched_setaffinity(1, {min(os.sched_getaffinity(1))})),
            ):
                try:
                    change()
                    print("changed pid 1", what)
                except OSError as exc:
                    print("cannot change pid 1", what, type(exc).__name__)
            print("tried pid 1")
        return {"type": "play_card", "card": max(state["hand"])}

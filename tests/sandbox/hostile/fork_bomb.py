"""Fork bomb: every child forks again, forever.

Expected (docker): the pids limit (64, a cgroup limit) stops the bomb; fork fails in the agent,
which notices and plays on; the match ends normally and removing the container ends the bomb.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED fork']}
import os
import time


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            forked = 0
            try:
                for _ in range(10000):
                    if os.fork() == 0:
                        while True:  # the child: fork more, never return into the harness
                            try:
                                os.fork()
                            except OSError:
                                time.sleep(0.05)
                    forked += 1
            except OSError as exc:
                print("BLOCKED fork after", forked, type(exc).__name__)
        return {"type": "play_card", "card": max(state["hand"])}

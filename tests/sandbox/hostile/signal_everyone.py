"""Sends SIGKILL to -1 (every process it may signal) after starting a helper child.

Expected (docker): only its own container's processes are reachable: it kills its helper, not the
opponent or the worker; normal end. Never run in the process backend (it would kill every
process of the user).
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['sent to -1']}
import os
import signal
import time


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            if os.fork() == 0:
                time.sleep(3600)
                os._exit(0)
            os.kill(-1, signal.SIGKILL)
            print("sent to -1")
        return {"type": "play_card", "card": max(state["hand"])}

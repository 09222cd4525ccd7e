"""Sends SIGKILL and SIGSTOP to pid 1.

Expected (docker): pid 1 is the container's init; the kernel drops both: normal end.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['sent to 1']}
import os
import signal


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            for sig in (signal.SIGKILL, signal.SIGSTOP):
                try:
                    os.kill(1, sig)
                    print("sent to 1", sig.name)
                except OSError as exc:
                    print("BLOCKED", sig.name, type(exc).__name__)
        return {"type": "play_card", "card": max(state["hand"])}

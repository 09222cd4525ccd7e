"""Sends SIGKILL, SIGSTOP and SIGINT to its parent (the worker, outside a container).

Expected (docker): the parent is the container's init (tini); SIGKILL and SIGSTOP from inside
its namespace are dropped by the kernel, SIGINT is ignored: normal end. Never run in the process
backend, where the parent is the worker.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['sent to']}
import os
import signal


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            parent = os.getppid()
            for sig in (signal.SIGKILL, signal.SIGSTOP, signal.SIGINT):
                try:
                    os.kill(parent, sig)
                    print("sent to", parent, sig.name)
                except OSError as exc:
                    print("BLOCKED", sig.name, type(exc).__name__)
        return {"type": "play_card", "card": max(state["hand"])}

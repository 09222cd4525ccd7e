"""Computes for 60 s at import.

Expected: loading overruns its 10 s budget: init error, and the agent is stopped.
"""
EXPECT = {'reason': 'init_error', 'detail': 'budget', 'process': {}}
import time

_until = time.monotonic() + 60
while time.monotonic() < _until:
    pass


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        return {"type": "play_card", "card": max(state["hand"])}

"""Calls os._exit(9) at import.

Expected: an init error: the process ended while loading, exit code 9.
"""
EXPECT = {'reason': 'init_error', 'detail': 'code 9', 'process': {}}
import os
os._exit(9)


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        return {"type": "play_card", "card": max(state["hand"])}

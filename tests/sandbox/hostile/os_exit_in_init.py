"""Calls os._exit(0) in __init__.

Expected: an init error: the process ended while loading, exit code 0.
"""
EXPECT = {'reason': 'init_error', 'detail': 'code 0', 'process': {}}
import os


class Agent:
    GAME = "simple-card"

    def __init__(self):
        os._exit(0)

    def on_turn(self, state):
        return {"type": "play_card", "card": max(state["hand"])}

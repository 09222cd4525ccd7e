"""Calls sys.exit(3) in __init__.

Expected: an init error that names sys.exit.
"""
EXPECT = {'reason': 'init_error', 'detail': 'sys.exit(3)', 'process': {}}
import sys


class Agent:
    GAME = "simple-card"

    def __init__(self):
        sys.exit(3)

    def on_turn(self, state):
        return {"type": "play_card", "card": max(state["hand"])}

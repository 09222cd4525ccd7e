"""Calls sys.exit(1) at import.

Expected: an init error that names sys.exit.
"""
EXPECT = {'reason': 'init_error', 'detail': 'sys.exit(1)', 'process': {}}
import sys
sys.exit(1)


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        return {"type": "play_card", "card": max(state["hand"])}

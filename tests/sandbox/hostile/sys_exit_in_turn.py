"""Calls sys.exit() in on_turn.

Expected: a crash forfeit that names sys.exit.
"""
EXPECT = {'reason': 'crash', 'detail': 'sys.exit', 'process': {}}
import sys


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        sys.exit(0)

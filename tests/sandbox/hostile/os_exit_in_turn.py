"""Calls os._exit(4) in on_turn.

Expected: a crash forfeit: the process ended with code 4.
"""
EXPECT = {'reason': 'crash', 'detail': 'code 4', 'process': {}}
import os


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        os._exit(4)

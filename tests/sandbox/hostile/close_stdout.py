"""Closes fd 0, 1 and 2 and sys.stdout in __init__.

Expected: the protocol runs on private descriptors; the agent plays on; normal end.
"""
EXPECT = {'reason': 'normal', 'process': {}}
import os
import sys


class Agent:
    GAME = "simple-card"

    def __init__(self):
        for fd in (0, 1, 2):
            os.close(fd)
        sys.stdout.close()

    def on_turn(self, state):
        return {"type": "play_card", "card": max(state["hand"])}

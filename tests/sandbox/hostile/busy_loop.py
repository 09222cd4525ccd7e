"""Busy loop in on_turn.

Expected: past the 2 s budget the controller stops waiting and kills the agent: timeout.
"""
EXPECT = {'reason': 'timeout', 'detail': 'did not answer within 2 s', 'process': {}}


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        while True:
            pass

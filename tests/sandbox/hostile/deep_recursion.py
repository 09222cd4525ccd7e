"""Recurses without end in on_turn.

Expected: RecursionError is the agent's own exception: an illegal attempt each time, then an
illegal forfeit; the harness survives it.
"""
EXPECT = {'reason': 'illegal', 'detail': 'RecursionError', 'process': {}}


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        return self.on_turn(state)

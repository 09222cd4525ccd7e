"""Sleeps 30 s in on_turn.

Expected: timeout after the 2 s budget; the sleeping agent is killed, not waited for.
"""
EXPECT = {'reason': 'timeout', 'detail': 'did not answer within 2 s', 'process': {}}
import time


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        time.sleep(30)
        return {"type": "play_card", "card": max(state["hand"])}

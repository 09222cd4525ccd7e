"""Returns a set, which JSON cannot carry.

Expected: each reply is refused as InvalidReply (like the in-process handle); the fourth in a
row forfeits: illegal.
"""
EXPECT = {'reason': 'illegal', 'detail': 'InvalidReply', 'process': {}}


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        return {"type": "play_card", "card": {max(state["hand"])}}

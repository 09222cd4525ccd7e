"""Returns NaN.

Expected: InvalidReply each time; illegal forfeit.
"""
EXPECT = {'reason': 'illegal', 'detail': 'InvalidReply', 'process': {}}


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        return {"type": "play_card", "card": float("nan")}

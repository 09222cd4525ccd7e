"""Returns a dict that contains itself.

Expected: InvalidReply each time; illegal forfeit.
"""
EXPECT = {'reason': 'illegal', 'detail': 'InvalidReply', 'process': {}}


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        reply = {"type": "play_card", "card": max(state["hand"])}
        reply["self"] = reply
        return reply

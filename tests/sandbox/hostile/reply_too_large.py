"""Returns a 5 MB reply.

Expected: the controller reads at most 1 MiB of a reply line: a protocol breach, crash forfeit.
"""
EXPECT = {'reason': 'crash', 'detail': 'byte limit', 'process': {}}


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        return {"type": "play_card", "card": max(state["hand"]), "pad": "z" * (5 * 1024 * 1024)}

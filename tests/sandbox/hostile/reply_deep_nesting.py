"""Returns a legal action padded with a list nested 950 levels deep (it once made the platform's
event flush raise RecursionError and left the match running for good).

Expected: the controller bounds the nesting of every reply: a protocol violation, crash forfeit.
"""
EXPECT = {'reason': 'crash', 'detail': 'nest deeper than 64', 'process': {}}


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        pad = []
        for _ in range(950):
            pad = [pad]
        return {"type": "play_card", "card": max(state["hand"]), "pad": pad}

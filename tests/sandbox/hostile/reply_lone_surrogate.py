"""Returns an action whose text holds a lone surrogate (valid in a Python str and in JSON's
escapes, not valid Unicode: PostgreSQL and UTF-8 files refuse it).

Expected: a protocol violation, crash forfeit.
"""
EXPECT = {'reason': 'crash', 'detail': 'lone surrogate', 'process': {}}


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        return {"type": "play_card", "card": max(state["hand"]), "note": "\ud800"}

"""Writes one 30 MB line without a newline.

Expected: cut at the cap and marked; the reply channel is untouched; normal end.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['output cut'], 'process': {}}
import sys


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        sys.stdout.write("y" * (30 * 1024 * 1024))
        return {"type": "play_card", "card": max(state["hand"])}

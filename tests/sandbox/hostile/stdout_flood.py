"""Prints 40 MB a turn, from Python and with os.write.

Expected: the output is cut at 8 KiB a call (256 KiB a match) and the cut is marked; the flood
is drained, never blocks, and the match ends normally.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['output cut'], 'process': {}}
import os


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        line = "flood " * 1000 + "\n"
        for _ in range(3000):
            print(line, end="")
            os.write(1, line.encode())
        return {"type": "play_card", "card": max(state["hand"])}

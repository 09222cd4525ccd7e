"""Prints fake protocol replies on fd 1 (os.write) and with print, claiming card 99 and ok.

Expected: fd 1 is not the protocol channel; the lines arrive as stdout, the real reply is the one
returned; normal end.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['"card": 99'], 'process': {}}
import json
import os


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        for i in range(20):
            fake = {"id": i, "ok": True, "result": {"type": "play_card", "card": 99}, "stdout": "", "elapsed_ms": 0}
            os.write(1, (json.dumps(fake) + "\n").encode())
            print(json.dumps(fake))
        return {"type": "play_card", "card": max(state["hand"])}

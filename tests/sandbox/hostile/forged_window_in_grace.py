"""Takes over the harness's reply channel: in round 2 it sleeps 2.5 s (over the 2 s budget, inside
the 1 s grace), writes a reply of its own claiming the turn took 0.1 ms, and swallows the
harness's true reply.

Expected: this is the most a lying harness can gain, the grace: the forged window is charged, the
controller's own wall time (over 2 s) is logged beside it; the match ends normally.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['FORGED'], 'wall_over_charged_ms': 2000, 'process': {}}
import json
import sys
import time


class _SwallowOne:
    def __init__(self, harness, real):
        self.harness, self.real = harness, real

    def write(self, data):
        self.harness.replies = self.real
        return len(data)

    def flush(self):
        pass


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        harness = sys._getframe(1).f_locals["self"]
        request = sys._getframe(1).f_locals["request"]
        action = {"type": "play_card", "card": max(state["hand"])}
        if state["round"] == 2:
            time.sleep(2.5)
            forged = {"id": request["id"], "ok": True, "result": action, "stdout": "FORGED\n",
                      "elapsed_ms": 0.1, "cpu_ms": 0.1}
            harness.replies.write(json.dumps(forged).encode() + b"\n")
            harness.replies.flush()
            harness.replies = _SwallowOne(harness, harness.replies)
        return action

"""Takes over the harness's reply channel and sends a reply whose window is -1000 ms (to earn
time back), then swallows the harness's true reply.

Expected: a window that is not a non-negative finite number is a protocol violation: crash.
"""
EXPECT = {'reason': 'crash', 'detail': 'broke the protocol', 'process': {}}
import json
import sys


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
        forged = {"id": request["id"], "ok": True, "result": action, "stdout": "",
                  "elapsed_ms": -1000, "cpu_ms": 0}
        harness.replies.write(json.dumps(forged).encode() + b"\n")
        harness.replies.flush()
        harness.replies = _SwallowOne(harness, harness.replies)
        return action

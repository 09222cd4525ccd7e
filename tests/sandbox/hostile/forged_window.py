"""Takes over the harness's reply channel and, after sleeping 4 s, forges a reply that claims the
turn took 0.1 ms.

Expected: the controller stops waiting at its backstop (the 2 s budget plus 1 s of grace) and
the seat forfeits by timeout: a forged window never buys more than the grace.
"""
EXPECT = {'reason': 'timeout', 'detail': 'did not answer within 2 s', 'process': {}}
import json
import sys
import time


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        harness = sys._getframe(1).f_locals["self"]
        request = sys._getframe(1).f_locals["request"]
        action = {"type": "play_card", "card": max(state["hand"])}
        if state["round"] == 2:
            time.sleep(4)
            forged = {"id": request["id"], "ok": True, "result": action, "stdout": "FORGED\n",
                      "elapsed_ms": 0.1, "cpu_ms": 0.1}
            harness.replies.write(json.dumps(forged).encode() + b"\n")
            harness.replies.flush()
        return action

"""Takes over the harness's reply channel and sends a reply holding a result nested 2000 lists deep,
swallowing the harness's true reply.

Expected: the first such reply is a protocol violation: crash forfeit, never a platform error.
"""
EXPECT = {'reason': 'crash', 'detail': 'broke the protocol', 'process': {}}
import sys

FORGERIES = [
    b'{"id": %d, "ok": true, "result": {"type": "play_card", "card": 1e999}, "stdout": "", "elapsed_ms": 1}',
    b'{"id": %d, "ok": true, "result": {"type": "play_card", "card": "\\ud800"}, "stdout": "", "elapsed_ms": 1}',
    b'{"id": %d, "ok": true, "result": ' + b"[" * 2000 + b"]" * 2000 + b', "stdout": "", "elapsed_ms": 1}',
]


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
        line = FORGERIES[2] % request["id"]
        harness.replies.write(line + b"\n")
        harness.replies.flush()
        harness.replies = _SwallowOne(harness, harness.replies)
        return {"type": "play_card", "card": max(state["hand"])}

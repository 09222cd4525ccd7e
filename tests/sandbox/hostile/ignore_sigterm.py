"""Ignores SIGTERM (and SIGINT, SIGHUP), then loops in on_turn.

Expected: timeout; the controller kills with SIGKILL, which cannot be ignored, and the
container is removed.
"""
EXPECT = {'reason': 'timeout', 'process': {}}
import signal


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        while True:
            pass

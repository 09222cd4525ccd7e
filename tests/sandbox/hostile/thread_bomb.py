"""Thread bomb: starts sleeping threads until it cannot.

Expected (docker): threads count against the pids limit; starting one fails with RuntimeError,
the agent plays on, the match ends normally.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED thread']}
import threading
import time


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            started = 0
            try:
                for _ in range(100000):
                    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
                    started += 1
            except RuntimeError as exc:
                print("BLOCKED thread after", started, exc)
        return {"type": "play_card", "card": max(state["hand"])}

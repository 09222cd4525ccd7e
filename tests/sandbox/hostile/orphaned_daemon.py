"""Double-forks a daemon in its own session that outlives the agent's process.

Expected (docker): the daemon lives in the container, which is removed after the match; normal
end, no container left. (The process backend cannot catch a daemon in a new session.)
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['daemon started']}
import os
import time


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    while True:
                        time.sleep(0.1)
                os._exit(0)
            os.wait()
            print("daemon started")
        return {"type": "play_card", "card": max(state["hand"])}

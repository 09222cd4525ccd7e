"""Several busy processes: four children spin forever to take the machine's CPUs.

Expected (docker): the container gets one CPU at most and is frozen between its turns; the agent
answers in time, the opponent plays unhindered, the match ends normally.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['spinning 4']}
import os


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            for _ in range(4):
                if os.fork() == 0:
                    while True:
                        pass
            print("spinning 4")
        return {"type": "play_card", "card": max(state["hand"])}

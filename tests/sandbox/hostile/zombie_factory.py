"""Forks children that exit at once and never reaps them, until fork fails.

Expected (docker): zombies count against the pids limit, fork fails, the agent plays on; the
container (and its zombies) is removed after the match.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED zombies']}
import os


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            made = 0
            try:
                for _ in range(1000):
                    if os.fork() == 0:
                        os._exit(0)
                    made += 1
            except OSError as exc:
                print("BLOCKED zombies after", made, type(exc).__name__)
        return {"type": "play_card", "card": max(state["hand"])}

"""Reads the environment, /proc/1/environ and every /proc/*/environ, looking for secrets.

Expected (docker): the environment is empty (the harness clears what the image sets) and the only
processes are its own; the worker's secret (set by the test) appears nowhere. Normal end.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['env:', 'pid1:'], 'stdout_lacks': ['SECRET_VALUE']}
import os


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            print("env:", dict(os.environ))
            for pid in ["1", "self"] + [p for p in os.listdir("/proc") if p.isdigit()]:
                try:
                    with open(f"/proc/{pid}/environ", "rb") as f:
                        print(f"pid{pid}:", f.read()[:300])
                except OSError as exc:
                    print(f"pid{pid}: unreadable", type(exc).__name__)
        return {"type": "play_card", "card": max(state["hand"])}

"""Leaves state behind for whoever gets its container next, and looks for what earlier agents
left: files in /tmp and /dev/shm, a message in its own process's environment and argv, the
container's hostname. Played three times in a row with the warm pool on.

Expected (docker): every agent gets a fresh container, never one another agent used: no run finds
anything; normal end each time.
"""
EXPECT = {'reason': 'normal', 'alone': True, 'repeat': 3, 'stdout_has': ['looked'], 'stdout_lacks': ['FOUND']}
import os
import socket
import uuid

MINE = f"arena-left-{uuid.uuid4().hex}"
PLACES = ("/tmp", "/dev/shm")


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            for place in PLACES:
                try:
                    for name in os.listdir(place):
                        if name.startswith("arena-left-") and name != MINE:
                            print("FOUND", place, name)
                except OSError as exc:
                    print("cannot list", place, type(exc).__name__)
                try:
                    with open(os.path.join(place, MINE), "w") as f:
                        f.write(socket.gethostname())
                except OSError as exc:
                    print("cannot write", place, type(exc).__name__)
            print("looked in", ", ".join(PLACES), "as", socket.gethostname())
        return {"type": "play_card", "card": max(state["hand"])}

"""Goes after the unix-socket channel of a supervised container (docs/sandbox.md, "The
channel"): looks for the socket's directory and anything left in it, tries to connect to the
socket there (to speak to the supervisor, or to the next match's controller), to create a file
or a socket of its own in that directory, and changes the settings of the connected channel it
holds (a receive timeout and a send buffer size), which the supervisor shares with the next
agent.

Expected (docker): normal end, every attempt on the directory blocked, nothing found in it.
Played twice in one reused container (tests/sandbox/test_reuse.py): the changed settings
discard the container, so the second match plays in a new one.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED connect', 'BLOCKED create', 'BLOCKED bind', 'tried the channel'], 'stdout_lacks': ['ESCAPED', 'FOUND'], 'reuse': 'discarded'}
import os
import socket
import struct

PLACE = "/run/arena"


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            try:
                left = os.listdir(PLACE)
            except OSError as exc:
                left = []
                print("cannot list", PLACE, type(exc).__name__)
            if left:
                print("FOUND in", PLACE, left)
            try:
                probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                probe.connect(f"{PLACE}/channel.sock")
                print("ESCAPED connect")
            except OSError as exc:
                print("BLOCKED connect", type(exc).__name__)
            try:
                with open(f"{PLACE}/planted", "w") as f:
                    f.write("x")
                print("ESCAPED create")
            except OSError as exc:
                print("BLOCKED create", type(exc).__name__)
            try:
                socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).bind(f"{PLACE}/channel.sock")
                print("ESCAPED bind")
            except OSError as exc:
                print("BLOCKED bind", type(exc).__name__)
            for name in os.listdir("/proc/self/fd"):
                try:
                    if not os.readlink(f"/proc/self/fd/{name}").startswith("socket:"):
                        continue
                    held = socket.socket(fileno=os.dup(int(name)))
                    # Long enough never to trouble this match's own harness.
                    held.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack("ll", 60, 0))
                    held.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
                    print("changed a socket it holds", name)
                except OSError as exc:
                    print("cannot change", name, type(exc).__name__)
            print("tried the channel")
        return {"type": "play_card", "card": max(state["hand"])}

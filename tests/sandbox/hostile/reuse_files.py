"""Writes files in /tmp, /dev/shm and a POSIX message queue directory, a read-only directory
and a symbolic link to the harness, after looking for whatever an earlier match left.

Expected (docker): normal end. Played twice in one reused container (tests/sandbox/test_reuse.py):
the second match finds every place empty: the supervisor emptied them between the matches.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['looked in /tmp', 'wrote /tmp'], 'stdout_lacks': ['FOUND'], 'reuse': 'kept'}
import os

PLACES = ("/tmp", "/dev/shm", "/dev/mqueue")


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            for place in PLACES:
                try:
                    found = os.listdir(place)
                except OSError as exc:
                    print("cannot list", place, type(exc).__name__)
                    continue
                if found:
                    print("FOUND in", place, found[:10])
                print("looked in", place)
            for place in ("/tmp", "/dev/shm"):
                try:
                    with open(os.path.join(place, "left-behind"), "w") as f:
                        f.write("from an earlier match")
                    locked = os.path.join(place, "locked")
                    os.makedirs(os.path.join(locked, "inner"))
                    with open(os.path.join(locked, "inner", "file"), "w") as f:
                        f.write("x")
                    os.chmod(os.path.join(locked, "inner"), 0)
                    os.chmod(locked, 0)
                    os.symlink("/opt/arena/harness.py", os.path.join(place, "link"))
                    print("wrote", place)
                except OSError as exc:
                    print("cannot write", place, type(exc).__name__, exc)
        return {"type": "play_card", "card": max(state["hand"])}

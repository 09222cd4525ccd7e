"""Writes to /, /etc, the standard library and the harness.

Expected (docker): the root filesystem is read-only; every write fails, nothing changes on the
host, the match ends normally.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED /etc/arena-hostile-pwned'], 'stdout_lacks': ['ESCAPED']}
import os


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            stdlib = os.path.dirname(os.__file__)
            for path, mode in (
                ("/arena-hostile-pwned", "w"),
                ("/etc/arena-hostile-pwned", "w"),
                (stdlib + "/arena_hostile_pwned.py", "w"),
                (stdlib + "/json/__init__.py", "a"),
                ("/opt/arena/harness.py", "a"),
            ):
                try:
                    with open(path, mode) as f:
                        f.write("pwned = True\n")
                    print("ESCAPED", path)
                except OSError as exc:
                    print("BLOCKED", path, type(exc).__name__)
        return {"type": "play_card", "card": max(state["hand"])}

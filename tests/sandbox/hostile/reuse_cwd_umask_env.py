"""Changes its working directory, umask and environment (os.environ and putenv), and checks
that it started with the ones every agent starts with.

Expected (docker): normal end. Played twice in one reused container (tests/sandbox/test_reuse.py):
the second match starts in /tmp with umask 022 and an empty environment again.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['started in /tmp', 'changed'], 'stdout_lacks': ['FOUND'], 'reuse': 'kept'}
import os

MARK = "ARENA_EARLIER_MATCH"


class Agent:
    GAME = "simple-card"

    def __init__(self):
        self.cwd = os.getcwd()
        self.umask = os.umask(0o022)
        os.umask(self.umask)
        self.environ = open("/proc/self/environ", "rb").read()

    def on_turn(self, state):
        if state["round"] == 1:
            if self.cwd != "/tmp":
                print("FOUND cwd", self.cwd)
            if self.umask != 0o022:
                print("FOUND umask", oct(self.umask))
            if MARK.encode() in self.environ or MARK in os.environ:
                print("FOUND environment", self.environ[:200])
            print("started in", self.cwd, "umask", oct(self.umask))
            os.chdir("/dev/shm")
            os.umask(0o777)
            os.environ[MARK] = "1"
            os.putenv(MARK, "1")
            print("changed")
        return {"type": "play_card", "card": max(state["hand"])}

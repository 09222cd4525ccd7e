"""At the end of its match fills the memory it may use and the process table (forks until the
pids limit refuses), then returns; at the start of a match looks at what it was given.

Expected (docker): normal end. Played twice in one container's life (tests/sandbox/test_reuse.py):
the second match starts with no other process, its memory nearly unused, and can fork.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['memory in use', 'forked'], 'stdout_lacks': ['FOUND'], 'reuse': 'any'}
import os
import time


def memory_in_use_mb():
    for path in ("/sys/fs/cgroup/memory.current", "/sys/fs/cgroup/memory/memory.usage_in_bytes"):
        try:
            with open(path) as f:
                return int(f.read()) // (1024 * 1024)
        except OSError:
            continue
    return -1


class Agent:
    GAME = "simple-card"

    def on_match_start(self, info):
        others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
        if others:
            print("FOUND processes", others)
        used = memory_in_use_mb()
        print("memory in use", used, "MB")
        if used > 128:
            print("FOUND memory in use", used)
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        print("forked")

    def on_turn(self, state):
        return {"type": "play_card", "card": max(state["hand"])}

    def on_match_end(self, result):
        self.ballast = bytearray(120 * 1024 * 1024)
        for at in range(0, len(self.ballast), 4096):
            self.ballast[at] = 1
        children = 0
        while True:
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(3600)
                os._exit(0)
            children += 1
        print("filled: children", children)

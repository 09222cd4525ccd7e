"""Double-forks a daemon in its own session that sleeps forever, after looking for any process
an earlier match left in its container.

Expected (docker): normal end. Played twice in one reused container (tests/sandbox/test_reuse.py):
the second match finds no process but pid 1 and its own: the supervisor killed the daemon.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['daemon started', 'looked for processes'], 'stdout_lacks': ['FOUND'], 'reuse': 'kept'}
import os
import time


def others():
    own = os.getpid()
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, own)]


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            for pid in others():
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        print("FOUND process", pid, f.read().replace(b"\0", b" ")[:80])
                except OSError:
                    print("FOUND process", pid)
            print("looked for processes")
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    while True:
                        time.sleep(0.1)
                os._exit(0)
            os.wait()
            print("daemon started")
        return {"type": "play_card", "card": max(state["hand"])}

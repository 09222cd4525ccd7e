"""Leaves a detached process that waits for the next match's agent to read its channel (its
stdin and stdout, and the supervisor's) and to kill it; tries the supervisor (pid 1) itself
too: its memory, descriptors and environment, and signals.

Expected (docker): normal end, every attempt on pid 1 blocked. Played twice in one reused
container (tests/sandbox/test_reuse.py): the lurker is gone before the second match starts, so
the second agent plays to the end unharmed and is never found by it.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED /proc/1/fd/0', 'BLOCKED /proc/1/mem', 'lurker started'], 'stdout_lacks': ['ESCAPED', 'FOUND'], 'reuse': 'kept'}
import os
import signal
import time


def lurk(known):
    # Every new process is the next agent (or its harness): read its channel, then kill it.
    while True:
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) not in known:
                pid = int(name)
                known.add(pid)
                for fd in ("0", "1"):
                    try:
                        os.read(os.open(f"/proc/{pid}/fd/{fd}", os.O_RDONLY | os.O_NONBLOCK), 4096)
                    except OSError:
                        pass
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        time.sleep(0.001)


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
            if others:
                print("FOUND processes", others)
            for path in ("/proc/1/fd/0", "/proc/1/fd/1", "/proc/1/mem", "/proc/1/environ"):
                try:
                    with open(path, "rb") as f:
                        f.read(1)
                    print("ESCAPED", path)
                except OSError as exc:
                    print("BLOCKED", path, type(exc).__name__)
            for sig in (signal.SIGKILL, signal.SIGSTOP, signal.SIGTERM, signal.SIGINT):
                try:
                    os.kill(1, sig)
                except OSError as exc:
                    print("cannot signal 1", sig.name, type(exc).__name__)
            known = {int(p) for p in os.listdir("/proc") if p.isdigit()}
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    known.add(os.getpid())
                    lurk(known)
                os._exit(0)
            os.wait()
            print("lurker started")
        return {"type": "play_card", "card": max(state["hand"])}

"""Privilege escalation: setuid(0), mount a tmpfs, unshare a user namespace, setns.

Expected (docker): no capabilities, no-new-privileges and seccomp: every call fails; normal end.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED setuid', 'BLOCKED mount', 'BLOCKED unshare'], 'stdout_lacks': ['ESCAPED']}
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000


def attempt(name, call):
    try:
        rc = call()
    except OSError as exc:
        print("BLOCKED", name, type(exc).__name__)
        return
    if rc == -1:
        print("BLOCKED", name, os.strerror(ctypes.get_errno()))
    else:
        print("ESCAPED", name)


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            attempt("setuid", lambda: os.setuid(0))
            attempt("mount", lambda: libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))
            attempt("unshare", lambda: libc.unshare(CLONE_NEWUSER | CLONE_NEWNS))
            attempt("setns", lambda: libc.setns(os.open("/proc/1/ns/mnt", os.O_RDONLY), 0))
        return {"type": "play_card", "card": max(state["hand"])}

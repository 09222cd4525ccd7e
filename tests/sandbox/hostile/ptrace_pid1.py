"""ptrace: attaches to pid 1, then asks to be traced itself.

Expected (docker): seccomp denies ptrace (EPERM) and no capability would allow it: normal end.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED ptrace attach', 'BLOCKED ptrace traceme'], 'stdout_lacks': ['ESCAPED']}
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
PTRACE_TRACEME, PTRACE_ATTACH = 0, 16


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            for what, args in (("attach", (PTRACE_ATTACH, 1, 0, 0)), ("traceme", (PTRACE_TRACEME, 0, 0, 0))):
                rc = libc.ptrace(*[ctypes.c_long(a) for a in args])
                if rc == -1:
                    print("BLOCKED ptrace", what, os.strerror(ctypes.get_errno()))
                else:
                    print("ESCAPED ptrace", what)
        return {"type": "play_card", "card": max(state["hand"])}

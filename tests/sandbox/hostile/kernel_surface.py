"""Calls the kernel interfaces the seccomp profile closes: io_uring, bpf, perf_event_open, keyctl,
userfaultfd, process_vm_readv, and an AF_NETLINK socket.

Expected (docker): each fails with EPERM; normal end.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED io_uring_setup', 'BLOCKED netlink'], 'stdout_lacks': ['ESCAPED']}
import ctypes
import os
import socket

libc = ctypes.CDLL(None, use_errno=True)
# x86_64 system call numbers.
CALLS = {"io_uring_setup": 425, "bpf": 321, "perf_event_open": 298, "keyctl": 250,
         "userfaultfd": 323, "process_vm_readv": 310}


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            for name, number in CALLS.items():
                rc = libc.syscall(number, 0, 0, 0, 0, 0)
                err = ctypes.get_errno()
                # EPERM is the profile's answer; anything else means the kernel saw the call.
                print("BLOCKED" if rc == -1 and err == 1 else "ESCAPED", name, os.strerror(err))
            try:
                socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).close()
                print("ESCAPED netlink")
            except OSError as exc:
                print("BLOCKED netlink", type(exc).__name__)
        return {"type": "play_card", "card": max(state["hand"])}

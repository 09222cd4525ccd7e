"""Runs a program from memory, around the noexec mounts: memfd_create, then execveat on a
descriptor of /bin/true (in a forked child, so that an exec that worked would show).

Expected (docker): the seccomp profile denies memfd_create and execveat (EPERM); normal end.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED memfd_create', 'BLOCKED execveat'], 'stdout_lacks': ['ESCAPED']}
import ctypes
import os
import platform

EXECVEAT = {"x86_64": 322, "aarch64": 281}.get(platform.machine(), 322)
AT_EMPTY_PATH = 0x1000


def try_execveat():
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open("/bin/true", os.O_RDONLY)
        argv = (ctypes.c_char_p * 2)(b"true", None)
        envp = (ctypes.c_char_p * 1)(None)
        libc.syscall(EXECVEAT, fd, b"", argv, envp, AT_EMPTY_PATH)
        os.write(write_end, str(ctypes.get_errno()).encode())
        os._exit(0)
    os.close(write_end)
    said = os.read(read_end, 64)
    os.waitpid(pid, 0)
    os.close(read_end)
    if said:
        print("BLOCKED execveat errno", said.decode())
    else:
        print("ESCAPED execveat ran /bin/true")


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            try:
                fd = os.memfd_create("tool")
                print("ESCAPED memfd_create gave", fd)
            except OSError as exc:
                print("BLOCKED memfd_create", type(exc).__name__)
            try_execveat()
        return {"type": "play_card", "card": max(state["hand"])}

"""The seccomp profile of the sandbox containers (docs/sandbox.md), built in code to say why.

It replaces Docker's default profile, so it must deny what that one denies to an unprivileged
container and, on top, what no agent needs: ptrace, process_vm_*, io_uring, keyctl, bpf,
perf_event_open, userfaultfd, memfd_create and execveat (exec from memory), and every socket
family but AF_UNIX, AF_INET and AF_INET6. The two internet families are there for the model
gateway's endpoint on the container's loopback (``sandbox/harness.py``): with ``network_mode``
``none`` the container's network namespace has ``lo`` and no other interface, so an internet
socket reaches this container and nothing else (and raw sockets need ``CAP_NET_RAW``, dropped).

It is a deny list (allow by default) rather than Docker's allow list: it reads as the list of
what an agent may not do, and it is one layer among several that each hold on their own: no
capabilities, ``no-new-privileges``, uid 65534, no network, a read-only root. Denied calls fail
with EPERM (``clone3`` with ENOSYS so that the C library falls back to ``clone``, which can be
filtered on its flags). The rules apply to the 64-bit, 32-bit and x32 system call tables.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

EPERM = 1
ENOSYS = 38
AF_UNIX = 1
AF_INET = 2
AF_INET6 = 10
#: The socket families an agent may open (see the module's docstring).
ALLOWED_SOCKET_FAMILIES = (AF_UNIX, AF_INET, AF_INET6)
ADDR_NO_RANDOMIZE = 0x0040000
READ_IMPLIES_EXEC = 0x0400000

#: CLONE_NEW* flags: a new namespace is the first step of most container escapes (a user
#: namespace gives its creator every capability inside it).
_CLONE_NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
    "CLONE_NEWTIME": 0x00000080,
}

#: Denied outright, grouped by the reason.
DENIED_SYSCALLS: dict[str, tuple[str, ...]] = {
    # Reading or steering another process.
    "inspect other processes": (
        "ptrace",
        "process_vm_readv",
        "process_vm_writev",
        "kcmp",
        "pidfd_getfd",
    ),
    # Kernel attack surface an agent never needs.
    "io_uring": ("io_uring_setup", "io_uring_enter", "io_uring_register"),
    "kernel keyring": ("keyctl", "add_key", "request_key"),
    "bpf and perf": ("bpf", "perf_event_open"),
    "userfaultfd": ("userfaultfd",),
    # Namespaces and mounts.
    "namespaces": ("unshare", "setns"),
    "mounts": (
        "mount",
        "umount",
        "umount2",
        "pivot_root",
        "chroot",
        "fsopen",
        "fsconfig",
        "fsmount",
        "fspick",
        "move_mount",
        "open_tree",
        "mount_setattr",
    ),
    # The machine itself: modules, clocks, reboot, swap, accounting, kernel log.
    "machine": (
        "init_module",
        "finit_module",
        "delete_module",
        "create_module",
        "kexec_load",
        "kexec_file_load",
        "reboot",
        "swapon",
        "swapoff",
        "acct",
        "settimeofday",
        "stime",
        "clock_settime",
        "clock_settime64",
        "clock_adjtime",
        "clock_adjtime64",
        "adjtimex",
        "syslog",
        "sethostname",
        "setdomainname",
        "iopl",
        "ioperm",
        "vhangup",
        "quotactl",
        "quotactl_fd",
        "nfsservctl",
        "lookup_dcookie",
        "_sysctl",
        "uselib",
        "get_kernel_syms",
        "query_module",
        "vm86",
        "vm86old",
        "ustat",
        "sysfs",
    ),
    # Running a program from memory, around the noexec mounts of /tmp and /dev/shm (a hostile
    # agent did: memfd_create, write an ELF, execveat it). The harness needs neither.
    "exec from memory": ("memfd_create", "memfd_secret", "execveat"),
    # File handles bypass path permissions (the "shocker" escape); fanotify watches the host.
    "file handles": ("open_by_handle_at", "name_to_handle_at", "fanotify_init"),
    # NUMA policy calls can touch other processes' memory placement.
    "numa": ("move_pages", "migrate_pages", "mbind", "set_mempolicy", "get_mempolicy"),
}


def _arg(index: int, value: int, op: str, value_two: int = 0) -> dict[str, Any]:
    return {"index": index, "value": value, "valueTwo": value_two, "op": op}


def build_profile() -> dict[str, Any]:
    """The profile as the Docker API takes it (``security_opt=["seccomp=<json>"]``)."""
    names = sorted({name for group in DENIED_SYSCALLS.values() for name in group})
    rules: list[dict[str, Any]] = [
        {"names": names, "action": "SCMP_ACT_ERRNO", "errnoRet": EPERM},
        # clone3 passes its flags in memory seccomp cannot read: make the C library use clone.
        {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": ENOSYS},
    ]
    rules.extend(_socket_family_rules())
    # personality: no turning off address randomisation, no executable data.
    for flag in (ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC):
        rules.append(
            {
                "names": ["personality"],
                "action": "SCMP_ACT_ERRNO",
                "errnoRet": EPERM,
                "args": [_arg(0, flag, "SCMP_CMP_MASKED_EQ", flag)],
            }
        )
    for flag in _CLONE_NAMESPACE_FLAGS.values():
        rules.append(
            {
                "names": ["clone"],
                "action": "SCMP_ACT_ERRNO",
                "errnoRet": EPERM,
                "args": [_arg(0, flag, "SCMP_CMP_MASKED_EQ", flag)],
            }
        )
    return {
        "defaultAction": "SCMP_ACT_ALLOW",
        "archMap": [
            {
                "architecture": "SCMP_ARCH_X86_64",
                "subArchitectures": ["SCMP_ARCH_X86", "SCMP_ARCH_X32"],
            },
            {
                "architecture": "SCMP_ARCH_AARCH64",
                "subArchitectures": ["SCMP_ARCH_ARM"],
            },
        ],
        "syscalls": rules,
    }


def _socket_family_rules() -> list[dict[str, Any]]:
    """Deny every socket family but ``ALLOWED_SOCKET_FAMILIES`` (this closes netlink, packet and
    vsock sockets, which reach the kernel even without a network). One comparison a rule: a
    rule's comparisons are all required, and libseccomp takes one per argument. Any value above
    the highest allowed family is denied, so upper bits set in the 64-bit register (the kernel
    reads an int) can only deny more."""
    allowed = sorted(ALLOWED_SOCKET_FAMILIES)
    rules = [
        {
            "names": ["socket", "socketpair"],
            "action": "SCMP_ACT_ERRNO",
            "errnoRet": EPERM,
            "args": [_arg(0, family, "SCMP_CMP_EQ")],
        }
        for family in range(allowed[-1])
        if family not in allowed
    ]
    rules.append(
        {
            "names": ["socket", "socketpair"],
            "action": "SCMP_ACT_ERRNO",
            "errnoRet": EPERM,
            "args": [_arg(0, allowed[-1], "SCMP_CMP_GT")],
        }
    )
    return rules


@cache
def profile_json() -> str:
    """``build_profile()`` as compact JSON (built once)."""
    return json.dumps(build_profile(), separators=(",", ":"))

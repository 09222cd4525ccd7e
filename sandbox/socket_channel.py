"""The controller's end of a supervised container's unix-socket channel (docs/sandbox.md).

The attach stream carries every byte of every call through the engine (dockerd, then the
container's shim, then a pipe), about 0.3 ms of the engine's CPU and four more process hops a
call. Instead, for each container this process makes a directory of its own, binds a listening
unix socket in it, and the engine bind-mounts that directory (read-only) into that container
alone at ``CHANNEL_MOUNT``. The container's supervisor (``harness.py --supervise --channel``)
connects once, at its start, before any agent code exists in the container; this end accepts
exactly that one connection, checks it came from the container's init (uid and pid namespace),
then closes the listener and removes the socket file and its directory (the container keeps
its mount of the now empty directory). From then on nothing
can connect to the channel: the connected socket is the only one there will ever be, and the
supervisor hands it to each match's agent process as its stdin and stdout, as it did the
container's own.

Who could reach the socket while it listens (milliseconds): only this host's root (the
directory's parent is ``0700``, this process's own) and the processes of the container it is
mounted in, where only the supervisor runs yet. The directory is ``0700`` and owned by the
container's user when this process may give it away (root), else ``0711`` inside that private
parent. The container keeps ``network_mode=none``; a unix socket is no network.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import struct
import tempfile
import time

from games.core.errors import PlatformError

#: Where the directory appears inside the container, and the socket's name in it.
CHANNEL_MOUNT = "/run/arena"
CHANNEL_NAME = "channel.sock"
CHANNEL_PATH = f"{CHANNEL_MOUNT}/{CHANNEL_NAME}"

_PEERCRED = struct.Struct("3i")


class ChannelListener:
    """One container's listening socket, until its supervisor connects."""

    def __init__(self, parent: str, user: str) -> None:
        self.uid, self.gid = _ids(user)
        _private_parent(parent)
        self.directory = tempfile.mkdtemp(prefix="c-", dir=parent)
        self.path = os.path.join(self.directory, CHANNEL_NAME)
        self._listener: socket.socket | None = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._listener.bind(self.path)
            self._listener.listen(1)
            if os.geteuid() == 0:
                os.chown(self.path, self.uid, self.gid)
                os.chmod(self.path, 0o600)
                os.chown(self.directory, self.uid, self.gid)  # mkdtemp made it 0700
            else:
                os.chmod(self.path, 0o666)  # noqa: S103 - reachable only through the 0700 parent
                os.chmod(self.directory, 0o711)  # noqa: S103 - the same
        except OSError as exc:
            self.close()
            raise PlatformError(f"the sandbox could not make its channel socket: {exc}") from exc

    def accept(self, deadline: float) -> socket.socket:
        """The supervisor's connection (``TimeoutError`` when none came before ``deadline``);
        the listener is gone afterwards, whatever happened."""
        listener = self._listener
        if listener is None:
            raise ConnectionError("the channel's listener is closed")
        try:
            listener.settimeout(max(0.001, deadline - time.perf_counter()))
            conn, _ = listener.accept()
        finally:
            self.close()
        try:
            self._check_peer(conn)
        except BaseException:
            conn.close()
            raise
        conn.settimeout(None)
        return conn

    def _check_peer(self, conn: socket.socket) -> None:
        pid, uid, _gid = _PEERCRED.unpack(
            conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
        )
        # pid 0: the peer's pid namespace is not below ours (a worker in a container of its own
        # beside the agents'); the uid, and the moment, still say who it is.
        if uid != self.uid or (pid != 0 and not _is_namespace_init(pid)):
            raise ConnectionError(
                f"the channel was connected by pid {pid} uid {uid}, not the container's init"
            )

    def close(self) -> None:
        """Stop listening and remove the socket file and its directory (safe to call twice)."""
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.close()
            self._listener = None
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        with contextlib.suppress(OSError):
            os.rmdir(self.directory)


def _ids(user: str) -> tuple[int, int]:
    uid, _, gid = user.partition(":")
    try:
        return int(uid), int(gid or uid)
    except ValueError:
        message = f"the socket channel needs a numeric container user, not {user!r}"
        raise PlatformError(message) from None


def _private_parent(parent: str) -> None:
    """Make ``parent`` (a directory of this process's user, ``0700``) or refuse one that is not."""
    with contextlib.suppress(FileExistsError):
        os.makedirs(parent, mode=0o700)
    info = os.lstat(parent)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise PlatformError(f"{parent} is not a directory of this process's user")
    if info.st_mode & 0o077:
        os.chmod(parent, 0o700)


def _is_namespace_init(pid: int) -> bool:
    """True when ``pid`` (as this process sees it) is pid 1 in its own pid namespace."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"NSpid:"):
                    ids = line.split()[1:]
                    return len(ids) > 1 and ids[-1] == b"1"
    except OSError:
        return False
    return False

"""The socket channel's listener (``sandbox/socket_channel.py``) on its own: where it listens,
whom it accepts, and that nothing is left to connect to afterwards. The whole channel, with a
real container and hostile agents, is in ``test_reuse.py`` and ``test_hostile.py``."""

from __future__ import annotations

import os
import socket
import stat
import threading
import time
from pathlib import Path

import pytest

from games.core.errors import PlatformError
from sandbox.socket_channel import CHANNEL_NAME, ChannelListener


def _own_user() -> str:
    return f"{os.geteuid()}:{os.getegid()}"


def _connect_soon(path: str) -> threading.Thread:
    def connect() -> None:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(path)
            time.sleep(0.2)
        except OSError:
            pass
        finally:
            probe.close()

    thread = threading.Thread(target=connect)
    thread.start()
    return thread


def test_the_listener_lives_in_a_private_directory_of_its_own(tmp_path: Path) -> None:
    parent = tmp_path / "channels"
    first = ChannelListener(str(parent), _own_user())
    second = ChannelListener(str(parent), _own_user())
    try:
        assert stat.S_IMODE(parent.stat().st_mode) == 0o700
        assert first.directory != second.directory
        assert Path(first.directory).parent == parent
        socket_mode = stat.S_IMODE(os.stat(first.path).st_mode)
        if os.geteuid() == 0:
            assert stat.S_IMODE(os.stat(first.directory).st_mode) == 0o700
            assert socket_mode == 0o600
        assert Path(first.path).name == CHANNEL_NAME
    finally:
        first.close()
        second.close()
    assert not Path(first.directory).exists() and not Path(second.directory).exists()


def test_a_loose_parent_is_tightened_and_a_foreign_one_refused(tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o777)
    os.chmod(loose, 0o777)
    ChannelListener(str(loose), _own_user()).close()
    assert stat.S_IMODE(loose.stat().st_mode) == 0o700
    link = tmp_path / "link"
    link.symlink_to(loose)
    with pytest.raises(PlatformError):
        ChannelListener(str(link), _own_user())


def test_a_peer_that_is_not_the_containers_init_is_refused_and_the_socket_is_gone(
    tmp_path: Path,
) -> None:
    # This test process is no pid namespace's init: it stands for an agent that connects.
    listener = ChannelListener(str(tmp_path / "channels"), _own_user())
    path, directory = listener.path, listener.directory
    thread = _connect_soon(path)
    with pytest.raises(ConnectionError):
        listener.accept(time.perf_counter() + 10)
    thread.join()
    assert not os.path.exists(path) and not os.path.exists(directory)
    # Nothing is left to connect to.
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with pytest.raises(OSError):
        probe.connect(path)
    probe.close()


def test_a_peer_of_another_uid_is_refused(tmp_path: Path) -> None:
    other = "65534:65534" if os.geteuid() != 65534 else "0:0"
    listener = ChannelListener(str(tmp_path / "channels"), other)
    if os.geteuid() != 0:
        os.chmod(listener.path, 0o666)  # noqa: S103 - so this process may connect at all
    thread = _connect_soon(listener.path)
    with pytest.raises(ConnectionError, match="not the container's init"):
        listener.accept(time.perf_counter() + 10)
    thread.join()


def test_no_connection_in_time_is_a_timeout(tmp_path: Path) -> None:
    listener = ChannelListener(str(tmp_path / "channels"), _own_user())
    with pytest.raises(TimeoutError):
        listener.accept(time.perf_counter() + 0.05)
    assert not os.path.exists(listener.directory)

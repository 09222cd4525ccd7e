"""The real local model of the LLM-seat tests: SmolLM2-135M-Instruct served by llama-cpp-python.

``make llm-server`` installs both into a venv of their own and ``make test`` passes its python
as ``ARENA_LLM_SERVER_PYTHON``. ``local_model_server()`` starts the server on a free loopback
port, waits until it answers and stops it after; ``require_local_model()`` skips (fails in CI)
when the venv is missing.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from devtools.parts import stop_processes
from llm_seat import localserver


@cache
def _installed() -> tuple[str, str] | None:
    return localserver.installed_server(os.environ.get("ARENA_LLM_SERVER_PYTHON", ""))


def server_python() -> str | None:
    """The model server venv's python, when it has both packages."""
    found = _installed()
    return None if found is None else found[0]


#: What a test says (skipping locally, failing in CI) when the server is not installed.
MISSING = "the local model server (make llm-server)"


def require_local_model() -> str:
    """The model server's Python; a ``RuntimeError`` naming ``make llm-server`` when absent."""
    python = server_python()
    if python is None:
        raise RuntimeError(f"{MISSING} is not installed: run `make llm-server`")
    return python


@contextmanager
def local_model_server() -> Iterator[str]:
    """The base URL of a fresh llama-cpp-python server with SmolLM2 on 127.0.0.1."""
    require_local_model()
    found = _installed()
    assert found is not None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        localserver.server_argv(*found, port),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                # base is the loopback server this function just started (http only).
                with urllib.request.urlopen(f"{base}/models", timeout=5) as response:  # noqa: S310
                    if json.load(response).get("data"):
                        break
            except OSError:
                pass
            assert process.poll() is None, "the model server exited while starting"
            assert time.monotonic() < deadline, "the model server did not answer in 180 s"
            time.sleep(0.5)
        yield base
    finally:
        stop_processes(process)

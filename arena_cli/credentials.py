"""Where ``arena login`` remembers the server and the API token, for ``arena submit``.

One JSON file, ``$ARENA_CONFIG_DIR/credentials.json`` (default ``~/.config/agent-arena/``),
written with mode 0600 because the token acts as its owner. Standard library only.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def config_dir() -> Path:
    """``$ARENA_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/agent-arena``, else ``~/.config/...``."""
    explicit = os.environ.get("ARENA_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "agent-arena"


def credentials_path() -> Path:
    """The file ``arena login`` writes."""
    return config_dir() / "credentials.json"


def credentials_load() -> dict[str, str]:
    """The remembered ``server`` and ``token`` (empty when nothing is remembered or the file
    is unreadable: the commands then ask for ``--server``/``--token``)."""
    try:
        data = json.loads(credentials_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: str(v) for k, v in data.items() if k in ("server", "token", "username") and v}


def credentials_save(*, server: str, token: str, username: str) -> Path:
    """Remember them (mode 0600, the folder 0700); returns the file."""
    path = credentials_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump({"server": server, "token": token, "username": username}, out)
        out.write("\n")
    os.chmod(path, 0o600)
    return path


def credentials_forget() -> bool:
    """Delete the file; ``True`` when there was one."""
    try:
        credentials_path().unlink()
    except FileNotFoundError:
        return False
    return True

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


#: What a command says when it knows no server (``.format(command=...)``).
NO_SERVER = (
    "arena {command}: which server? Open its API token page (/accounts/token/ once signed in): "
    "it shows the `arena login --server URL --token TOKEN` command to run once; or pass "
    "--server URL"
)


def server_and_token(server: str | None, token: str | None) -> tuple[str | None, str | None]:
    """The server and token a command uses: what it was given, else ``$ARENA_SERVER`` /
    ``$ARENA_TOKEN``, else what ``arena login`` remembered (a remembered token only for the
    server it was given with). Either may be ``None``: the command then says what to do."""
    saved = credentials_load()
    server = server or os.environ.get("ARENA_SERVER") or saved.get("server")
    token = token or os.environ.get("ARENA_TOKEN")
    if not token and server and saved.get("server", "").rstrip("/") == server.rstrip("/"):
        token = saved.get("token")
    return server, token

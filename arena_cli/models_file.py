"""The models ``arena play`` may give an agent by name: a TOML file (standard library only).

``$ARENA_CONFIG_DIR/models.toml`` (default ``~/.config/agent-arena/models.toml``, as
``arena login``'s credentials), or ``--models-file FILE``. One table a model, under the name
the agent asks for (``model=`` in its request) and ``--agent-model NAME`` picks::

    [models.smollm2]
    base_url = "http://127.0.0.1:8080/v1"   # an OpenAI-compatible endpoint (required)
    model = "smollm2"                       # the model id the endpoint expects (default: the name)
    key_env = "MY_KEY"                      # the NAME of the variable holding its key (optional)
    max_tokens = 256                        # when a request names none (optional, default 256)
    max_tokens_cap = 1024                   # the most a request may ask for (optional, 1024)

The key itself is never in the file: it is read from the environment of ``arena play``, and
stays in that process (the agent's sandbox never sees it).
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena_cli.credentials import config_dir

_NAME = re.compile(r"^[-a-zA-Z0-9_.]{1,64}$")
_FIELDS = {"base_url", "model", "key_env", "max_tokens", "max_tokens_cap"}


class ModelsFileError(Exception):
    """The file is missing, unreadable or wrong; ``str()`` says where and what to change."""


@dataclass(frozen=True)
class ModelEntry:
    """One model of the file."""

    name: str
    base_url: str
    model: str
    key_env: str = ""
    max_tokens: int = 256
    max_tokens_cap: int = 1024

    def key(self) -> str:
        """The key from ``key_env`` ("" without one); ``ModelsFileError`` when it is unset."""
        if not self.key_env:
            return ""
        key = os.environ.get(self.key_env, "")
        if not key:
            raise ModelsFileError(
                f"model {self.name}: its key_env {self.key_env} is not set in this environment"
            )
        return key


def models_file_path() -> Path:
    """Where ``arena play`` looks without ``--models-file``."""
    return config_dir() / "models.toml"


def _positive_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1_000_000:
        raise ModelsFileError(f"{where} must be a whole number from 1 to 1000000, not {value!r}")
    return int(value)


def _entry(name: str, table: Any, path: Path) -> ModelEntry:
    where = f"{path}: [models.{name}]"
    if not _NAME.match(name):
        raise ModelsFileError(f"{where}: a name is 1-64 letters, digits, '-', '_' or '.'")
    if not isinstance(table, dict):
        raise ModelsFileError(f"{where} must be a table (base_url = ..., model = ...)")
    unknown = sorted(set(table) - _FIELDS)
    if unknown:
        raise ModelsFileError(
            f"{where}: unknown key {', '.join(unknown)} (known: {', '.join(sorted(_FIELDS))})"
        )
    base_url = table.get("base_url")
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise ModelsFileError(
            f"{where}: base_url must be an http:// or https:// URL, e.g. http://127.0.0.1:8080/v1"
        )
    texts = {}
    for key in ("model", "key_env"):
        value = table.get(key, "")
        if not isinstance(value, str):
            raise ModelsFileError(f"{where}: {key} must be a string")
        texts[key] = value
    max_tokens = _positive_int(table.get("max_tokens", 256), f"{where}: max_tokens")
    cap = _positive_int(table.get("max_tokens_cap", 1024), f"{where}: max_tokens_cap")
    return ModelEntry(
        name=name,
        base_url=base_url,
        model=texts["model"] or name,
        key_env=texts["key_env"],
        max_tokens=min(max_tokens, cap),
        max_tokens_cap=cap,
    )


def models_file_load(path: Path) -> dict[str, ModelEntry]:
    """The file's models by name; ``ModelsFileError`` when it is missing or wrong."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelsFileError(
            f"{path}: no such file; write one with a [models.NAME] table a model (base_url, "
            "model, key_env: see `arena play --help`), or give --agent-model-base-url URL"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelsFileError(f"{path}: cannot be read ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ModelsFileError(f"{path} is not TOML: {exc}") from None
    models = data.get("models")
    if not isinstance(models, dict) or not models:
        raise ModelsFileError(f"{path} has no [models.NAME] table")
    return {name: _entry(name, table, path) for name, table in models.items()}


def models_pick(path: Path, names: list[str]) -> list[ModelEntry]:
    """The file's models named ``names``, in that order; ``ModelsFileError`` for a name the
    file lacks (the error lists the ones it has)."""
    models = models_file_load(path)
    missing = [n for n in names if n not in models]
    if missing:
        raise ModelsFileError(
            f"{path} has no model {', '.join(missing)}; it has {', '.join(sorted(models))}"
        )
    return [models[n] for n in dict.fromkeys(names)]

"""The documents tell one story: the order of the apps is written once, and every path a
document names exists (a renamed module leaves no stale pointer behind)."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

from tests.test_layout import APP_ORDER

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])

#: Where a document's short path may start besides the repository root (``matches/play.py`` is
#: ``platform/arena/matches/play.py``; ``arena/settings.py`` is under ``platform/``).
BASES = [ROOT, ROOT / "platform", ROOT / "platform" / "arena", ROOT / "docs"]

#: A code span that looks like a path of this repository: a folder or a file with an extension.
PATH = re.compile(r"^[\w.-]+(/[\w.-]+)*/?$")
EXTENSIONS = (".py", ".md", ".toml", ".yaml", ".yml", ".json", ".html", ".cfg", ".txt", ".sh")


def _app_order_in_architecture() -> list[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.startswith("accounts →")]
    assert len(lines) == 1, "docs/architecture.md states the app order on one line"
    return [name.strip() for name in lines[0].split("→")]


def test_the_app_order_is_one_order_everywhere() -> None:
    installed = [
        app.removeprefix("arena.") for app in settings.INSTALLED_APPS if app.startswith("arena.")
    ]
    assert _app_order_in_architecture() == APP_ORDER == installed


def _named_paths(text: str) -> set[str]:
    names = set()
    for span in re.findall(r"`([^`\n]+)`", text):
        span = span.strip().split("::")[0].split(":")[0]
        if not PATH.match(span) or span.startswith(("http", "-", ".")):
            continue
        if "/" in span or span.endswith(EXTENSIONS):
            names.add(span)
    # Markdown links to files of the repository: [text](path) or [text](path#anchor).
    for target in re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", text):
        if not target.startswith(("http", "mailto:")):
            names.add(target)
    return names


#: The names of the repository's files, for a bare ``pool.py`` in a page about one folder.
SKIP_DIRS = {".git", ".venv", "node_modules", ".mypy_cache", ".ruff_cache", "var"}


def _file_names() -> set[str]:
    names = set()
    for path in ROOT.rglob("*"):
        if not SKIP_DIRS & set(path.relative_to(ROOT).parts):
            names.add(path.name + ("/" if path.is_dir() else ""))
    return names


#: Files a document names that live outside the repository (the user's machine).
OUTSIDE = {"credentials.json"}


def _exists(name: str, doc: Path, file_names: set[str]) -> bool:
    if "/" not in name.rstrip("/"):
        return name in OUTSIDE or name in file_names
    return any((base / name).exists() for base in [doc.parent, *BASES])


def test_every_path_a_document_names_exists() -> None:
    missing = []
    file_names = _file_names()
    for doc in DOCS:
        for name in sorted(_named_paths(doc.read_text(encoding="utf-8"))):
            if not _exists(name, doc, file_names):
                missing.append(f"{doc.relative_to(ROOT)} names {name}")
    assert missing == []

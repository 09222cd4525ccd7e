"""Guards for the layout of DESIGN.md §1."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Which top-level trees each tree may import from (DESIGN.md §1: games <- sandbox <- arena).
ALLOWED = {
    "games": {"games"},
    "sandbox": {"sandbox", "games"},
}
PROJECT_TREES = {"games", "sandbox", "arena", "arena_cli"}


def test_platform_is_a_source_root_not_a_package() -> None:
    # A package named `platform` shadows the standard library module Celery and Django import.
    assert not (ROOT / "platform" / "__init__.py").exists()


def _imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots & PROJECT_TREES


def test_imports_flow_one_way() -> None:
    violations = []
    for tree, allowed in ALLOWED.items():
        for path in sorted((ROOT / tree).rglob("*.py")):
            bad = _imported_roots(path) - allowed
            if bad:
                violations.append(f"{path.relative_to(ROOT)} imports {sorted(bad)}")
    assert violations == []


def test_harness_is_stdlib_only() -> None:
    harness = ROOT / "sandbox" / "harness.py"
    if not harness.exists():
        return
    import sys

    tree = ast.parse(harness.read_text(encoding="utf-8"))
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module.split(".")[0])
    assert modules - set(sys.stdlib_module_names) - {"__future__"} == set()


def test_arena_cli_never_imports_django() -> None:
    for path in (ROOT / "arena_cli").rglob("*.py"):
        roots = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                roots.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                roots.add(node.module.split(".")[0])
        assert not roots & {"django", "arena", "celery"}, path


def test_bench_scripts_shadow_no_module() -> None:
    # A script's folder leads sys.path: bench/platform.py would replace the standard library's
    # platform module (and bench/sandbox.py the sandbox package) for every import it makes.
    import sys

    taken = set(sys.stdlib_module_names) | PROJECT_TREES | {"sandbox", "games", "tests"}
    clashes = [p.name for p in (ROOT / "bench").glob("*.py") if p.stem in taken]
    assert clashes == []

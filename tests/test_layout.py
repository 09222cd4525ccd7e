"""Guards for the layout of docs/architecture.md, "Layers and the direction of imports"."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Which top-level trees each tree may import from (games <- sandbox <- arena).
ALLOWED = {
    "games": {"games"},
    "sandbox": {"sandbox", "games"},
    # Model seats: shared by the worker and the command line, so Django-free.
    "llm_seat": {"llm_seat", "games"},
}
PROJECT_TREES = {"games", "sandbox", "arena", "arena_cli", "llm_seat", "devtools"}


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


def _all_imported_roots(path: Path) -> set[str]:
    """Every top-level name ``path`` imports, at module level or inside functions alike."""
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_bench_and_tests_never_import_each_other() -> None:
    # What both need (starting Redis, PostgreSQL, a platform's environment) lives in devtools/.
    crossings = [
        f"{path.relative_to(ROOT)} imports {other}"
        for tree, other in (("bench", "tests"), ("tests", "bench"))
        for path in sorted((ROOT / tree).rglob("*.py"))
        if "hostile" not in path.parts and other in _all_imported_roots(path)
    ]
    assert crossings == []


def test_only_tests_and_benches_import_devtools() -> None:
    shipped = ["games", "sandbox", "arena_cli", "platform"]
    users = [
        str(path.relative_to(ROOT))
        for tree in shipped
        for path in sorted((ROOT / tree).rglob("*.py"))
        if "devtools" in _all_imported_roots(path)
    ]
    assert users == []


# --- The platform's apps (docs/architecture.md) --------------------------------------------------

ARENA = ROOT / "platform" / "arena"

#: The apps in the order they may depend on each other: each may import the ones before it only.
#: ``workflows`` (the cross-app workflows and the Celery tasks) sits above them all.
APP_ORDER = [
    "accounts",
    "notifications",
    "submissions",
    "llm",
    "matches",
    "ratings",
    "competitions",
    "catalog",
    # Operations (health, metrics, the maintenance record the tasks keep); its adapters include
    # the commands that run the whole platform.
    "ops",
    "workflows",
    # Above the workflows: it enqueues through them; nothing below imports it.
    "tournaments",
]

#: Modules that adapt the apps to the web or the command line (views, admin, forms, urls, API
#: routers, management commands): thin, so they may call any app or workflow; nothing imports
#: them back.
ADAPTERS = {"views", "admin", "forms", "urls", "management", "api"}


#: The source trees whose modules import each other, and the directory each module name is
#: relative to (``platform/`` is a source root: its package is ``arena``).
SOURCE_TREES = {
    "games": ROOT,
    "sandbox": ROOT,
    "arena_cli": ROOT,
    "platform/arena": ROOT / "platform",
}


def _module_name(path: Path, root: Path = ROOT / "platform") -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _tree_modules(tree: str) -> dict[str, Path]:
    root = SOURCE_TREES[tree]
    return {
        _module_name(p, root): p
        for p in sorted((ROOT / tree).rglob("*.py"))
        if "migrations" not in p.parts
    }


def _arena_modules() -> dict[str, Path]:
    return _tree_modules("platform/arena")


def _project_modules() -> dict[str, Path]:
    """Every module of the four source trees: games, sandbox, arena_cli and the platform."""
    return {name: path for tree in SOURCE_TREES for name, path in _tree_modules(tree).items()}


def _arena_imports(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """Every module of ``modules`` that ``path`` imports, at module level or inside functions
    alike (a tree's own root package excepted: importing it is importing its public names)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            # ``from arena.matches import sandboxing`` imports a module, not a name.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                for alias in node.names
            ]
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if "." in target and target != name:
                found.add(target)
    return found


def _import_graph(modules: dict[str, Path] | None = None) -> dict[str, set[str]]:
    modules = _arena_modules() if modules is None else modules
    return {name: _arena_imports(path, name, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle_in_any_source_tree() -> None:
    # Games, sandbox, the command line and the platform alike. Function-level imports count: an
    # import moved into a function to dodge a circle is still a circle (the modules still need
    # each other).
    graph = _import_graph(_project_modules())
    assert {"games.core.referee", "sandbox.pool", "arena_cli.main", "arena.matches.play"} <= set(
        graph
    ), "the import graph misses a source tree"
    assert _cycles(graph) == []


@pytest.mark.parametrize(
    ("first", "second", "cycle"),
    [
        ("arena.a", "arena.b", ["arena.a", "arena.b"]),
        ("sandbox.pool", "sandbox.engine", ["sandbox.engine", "sandbox.pool"]),
    ],
)
def test_the_cycle_finder_sees_a_function_level_circle(
    first: str, second: str, cycle: list[str], tmp_path: Path
) -> None:
    """``first`` imports ``second`` at its top; ``second`` imports ``first`` in a function."""
    modules = {name: tmp_path / f"{name.rsplit('.', 1)[1]}.py" for name in (first, second)}
    package, leaf = first.rsplit(".", 1)
    modules[first].write_text(f"from {second} import x\n")
    modules[second].write_text(f"def f():\n    from {package} import {leaf}\n")
    graph = {name: _arena_imports(path, name, modules) for name, path in modules.items()}
    assert _cycles(graph) == [cycle]


def _app_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in APP_ORDER else None


def test_apps_depend_on_each_other_one_way() -> None:
    # Each app imports only those before it in APP_ORDER, adapters excepted.
    violations = []
    for module, imported in _import_graph().items():
        app = _app_of(module)
        if app is None or ADAPTERS & set(module.split(".")[2:]):
            continue
        for target in sorted(imported):
            other = _app_of(target)
            if other is not None and APP_ORDER.index(other) > APP_ORDER.index(app):
                violations.append(f"{module} imports {target}")
    assert violations == []


def test_the_platform_never_tests_a_games_name() -> None:
    # A game's presentation comes through its spec (GameSpec.presenter): no `game == "chess"`.
    from games.core import available_game_ids

    ids = set(available_game_ids())
    found = []
    for path in sorted((ROOT / "platform").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                names = [
                    c.value
                    for c in [node.left, *node.comparators]
                    if isinstance(c, ast.Constant) and c.value in ids
                ]
                if names:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} tests {names}")
    for path in sorted((ROOT / "templates").rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        found += [f"{path.relative_to(ROOT)} tests {g}" for g in ids if f'== "{g}"' in text]
    assert found == []


#: The thin adapters of the apps: pages, admin, API endpoints (docs/architecture.md).
THIN_ADAPTERS = ("views.py", "admin.py", "api.py")


def _adapter_modules() -> list[Path]:
    found = [p for name in THIN_ADAPTERS for p in ARENA.glob(f"*/{name}")]
    return sorted([*found, ARENA / "api.py", ARENA / "admin_actions.py"])


def test_views_admin_and_api_never_query_the_orm() -> None:
    # Reads go through selectors, writes through services: an adapter that queries a model's
    # manager holds logic no other path shares (an admin action that skipped the service, a
    # view's query the API answers differently).
    found = []
    for path in _adapter_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "objects":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} uses .objects")
    assert found == []


def test_api_modules_import_at_the_top() -> None:
    # An import inside an endpoint hides a dependency from the layout checks above.
    found = []
    for path in sorted([ARENA / "api.py", ARENA / "api_base.py", *ARENA.glob("*/api.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found += [
                    f"{path.relative_to(ROOT)}:{inner.lineno} imports inside {node.name}"
                    for inner in ast.walk(node)
                    if isinstance(inner, ast.Import | ast.ImportFrom)
                ]
    assert found == []


#: Reads of the environment outside settings.py, each for a reason settings cannot serve.
ENV_READS_ALLOWED = {
    # Whether Django is configured yet: decided before any setting exists.
    "platform/arena/celery_app.py",
    # A model's API key, by the variable the operator named: kept out of settings (and so out of
    # every page and log that prints them).
    "platform/arena/llm/metering.py",
}


def test_settings_are_read_in_settings_py_only() -> None:
    found = []
    for path in sorted((ROOT / "platform").rglob("*.py")):
        name = str(path.relative_to(ROOT))
        if name == "platform/arena/settings.py" or name in ENV_READS_ALLOWED:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=name)
        for node in ast.walk(tree):
            text = ast.unparse(node) if isinstance(node, ast.expr) else ""
            # A subscript read (``os.environ["X"]``), not a write (metrics sets a variable).
            loads = isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
            if text in ("os.environ.get", "os.getenv") or (
                loads and text.startswith("os.environ[")
            ):
                found.append(f"{name}:{node.lineno} reads the environment")
    assert found == []


def test_the_in_flight_status_set_is_spelled_once() -> None:
    # matches/models.py names it (IN_FLIGHT_STATUSES, Match.objects.in_flight()); a copy that
    # drifts (a new status) would make two parts of the platform disagree on what is in flight.
    found = []
    for path in sorted(ARENA.rglob("*.py")):
        if "migrations" in path.parts or path == ARENA / "matches" / "models.py":
            continue
        text = path.read_text(encoding="utf-8")
        # The two statuses alone in a list or tuple (the API's Literal of every status is not).
        for needle in ("Status.QUEUED, Match.Status.RUNNING]", '"queued", "running"]'):
            if needle in text or needle[:-1] + ")" in text:
                found.append(f"{path.relative_to(ROOT)} spells out {needle[:-1]}")
        # Nor is the set read by name elsewhere: the querysets' ``in_flight()`` apply it.
        if "IN_FLIGHT_STATUSES" in text:
            found.append(f"{path.relative_to(ROOT)} filters by IN_FLIGHT_STATUSES")
    assert found == []

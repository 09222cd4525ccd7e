"""The static checks an upload passes before it is stored (docs/architecture.md).

Pure functions, no Django: each problem names the rule it breaks and, where there is one, the
line, so the person who uploaded the file knows what to change.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from games.core import available_game_ids

#: How much of an uploaded file is read at most: enough to tell it is too big (the size rule
#: reports the file's real size); the request size cap bounds what was received at all.
UPLOAD_READ_LIMIT_BYTES = 4 * 1024 * 1024 + 1

#: How deep an upload's syntax tree may nest (expressions inside expressions, blocks inside
#: blocks, a 500-branch elif chain). Real agents stay far below; CPython's compiler gives up
#: somewhere between 1,000 and 3,000 and its parser with MemoryError or RecursionError.
MAX_AST_DEPTH = 500


@dataclass(frozen=True)
class UploadProblem:
    """One reason an upload is refused."""

    rule: str
    message: str
    line: int | None = None
    #: The text of that line, so the person sees what is meant without opening an editor.
    source_line: str = ""

    def as_dict(self) -> dict[str, object]:
        """JSON form for the API."""
        return {
            "rule": self.rule,
            "line": self.line,
            "message": self.message,
            "source_line": self.source_line,
        }

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.message}"


@dataclass(frozen=True)
class CheckedSource:
    """The outcome of the checks: the text and its game when ``problems`` is empty."""

    source: str
    game: str | None
    problems: tuple[UploadProblem, ...]

    @property
    def ok(self) -> bool:
        """True when nothing was refused."""
        return not self.problems


def _refuse(rule: str, message: str, line: int | None = None, source: str = "") -> CheckedSource:
    lines = source.splitlines()
    text = lines[line - 1].rstrip()[:200] if line and 0 < line <= len(lines) else ""
    problem = UploadProblem(rule, message, line, text)
    return CheckedSource(source=source, game=None, problems=(problem,))


def check_upload(
    data: bytes, *, max_bytes: int, max_depth: int = MAX_AST_DEPTH, size: int | None = None
) -> CheckedSource:
    """Check an uploaded ``agent.py``; stops at the first rule broken (later ones depend on it).

    ``size`` is the file's real size when the caller read only the start of a big upload.
    """
    size = max(size or 0, len(data))
    if size > max_bytes:
        return _refuse(
            "size",
            f"the file is {size:,} bytes; the limit is {max_bytes:,} bytes "
            f"({max_bytes // 1024} KiB). Upload the agent's source, not data files.",
        )
    if not data.strip():
        return _refuse("empty", "the file is empty: upload your agent.py with a class Agent")
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        return _refuse(
            "utf8", "the file is binary (it contains a NUL byte); upload Python source", line
        )
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return _refuse(
            "utf8",
            f"the file is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8",
            line,
        )
    return check_source(source, max_depth=max_depth)


def ast_depth(tree: ast.AST, limit: int) -> tuple[int, int | None]:
    """The tree's nesting depth (iteratively: no recursion), stopping at the first node deeper
    than ``limit``; returns (depth, line of that node or None)."""
    deepest = 0
    todo: list[tuple[ast.AST, int]] = [(tree, 0)]
    while todo:
        node, depth = todo.pop()
        if depth > limit:
            return depth, getattr(node, "lineno", None)
        deepest = max(deepest, depth)
        todo.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest, None


def check_source(source: str, *, max_depth: int = MAX_AST_DEPTH) -> CheckedSource:
    """The checks that need the text: it parses (within a bounded depth), defines Agent with a
    known GAME and on_turn."""
    if "\x00" in source:
        line = source[: source.index("\x00")].count("\n") + 1
        return _refuse("utf8", "the file contains a NUL character; upload Python source text", line)
    try:
        tree = ast.parse(source, filename="agent.py")
    except SyntaxError as exc:
        return _refuse(
            "syntax", f"Python cannot parse the file: {exc.msg}", exc.lineno, source=source
        )
    except (MemoryError, RecursionError):
        # CPython's parser gives up on very deep expressions (50,000 `-` signs, 30,000 `not`s,
        # a 50,000-term sum) with these instead of a SyntaxError.
        return _refuse("depth", _too_deep(max_depth), source=source)
    depth, deepest_line = ast_depth(tree, max_depth)
    if depth > max_depth:
        return _refuse("depth", _too_deep(max_depth), deepest_line, source=source)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    agent = classes.get("Agent")
    if agent is None:
        return _refuse(
            "agent_class",
            "no top-level `class Agent` found: the platform instantiates `Agent()` from your file",
            source=source,
        )
    known = available_game_ids()
    game, game_line = _declared_game(agent, classes, tree)
    if game is None:
        return _refuse(
            "game",
            'class Agent has no `GAME = "<game id>"` string; set it to one of: ' + ", ".join(known),
            agent.lineno,
            source=source,
        )
    if game not in known:
        return _refuse(
            "game",
            f"GAME = {game!r} is not a game here; known games: {', '.join(known)}",
            game_line,
            source=source,
        )
    if not _defines(agent, classes, "on_turn"):
        return _refuse(
            "on_turn",
            "class Agent defines no `on_turn(self, round_state)` method; the referee calls it "
            "every turn and uses its return value as your action",
            agent.lineno,
            source=source,
        )
    return CheckedSource(source=source, game=game, problems=())


def declared_game(source: str) -> str | None:
    """The ``GAME`` string an agent's source declares, ``None`` when it cannot be read."""
    try:
        tree = ast.parse(source, filename="agent.py")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    agent = classes.get("Agent")
    return None if agent is None else _declared_game(agent, classes, tree)[0]


def _too_deep(max_depth: int) -> str:
    return (
        f"the code nests too deeply (the limit is {max_depth} levels of expressions and blocks): "
        "split long expressions and deeply nested code into smaller statements or functions"
    )


def _class_chain(agent: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> list[ast.ClassDef]:
    """Agent and the base classes defined in the same file, nearest first."""
    chain, todo, seen = [], [agent], set()
    while todo:
        node = todo.pop(0)
        if node.name in seen:
            continue
        seen.add(node.name)
        chain.append(node)
        todo.extend(
            classes[b.id] for b in node.bases if isinstance(b, ast.Name) and b.id in classes
        )
    return chain


def _declared_game(
    agent: ast.ClassDef, classes: dict[str, ast.ClassDef], tree: ast.Module
) -> tuple[str | None, int | None]:
    scopes: list[ast.ClassDef | ast.Module] = [*_class_chain(agent, classes), tree]
    for node in scopes:
        for stmt in node.body:
            targets: list[ast.expr] = []
            value: ast.expr | None = None
            if isinstance(stmt, ast.Assign):
                targets, value = stmt.targets, stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                targets, value = [stmt.target], stmt.value
            if any(isinstance(t, ast.Name) and t.id == "GAME" for t in targets):
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    return value.value, stmt.lineno
                return None, stmt.lineno
    return None, None


def _defines(agent: ast.ClassDef, classes: dict[str, ast.ClassDef], method: str) -> bool:
    return any(
        isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == method
        for node in _class_chain(agent, classes)
        for stmt in node.body
    )

"""Modules and their imports, read with :mod:`ast` (nothing is imported or executed).

Every ``import``/``from ... import`` is resolved to the module it names inside the package:
relative imports against the importing module's package, ``from pkg import name`` to the
submodule ``pkg.name`` when there is one. Each import says whether it runs at import time or
lazily (inside a function) and whether it sits under ``if TYPE_CHECKING:``. Reads of the process
environment (``os.environ``, ``os.getenv``, ``os.getcwd``, ``Path.home()``, ``Path.cwd()``...) are
collected too, with their lines.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ENVIRONMENT_READS", "ImportEdge", "ParsedModule", "module_name", "parse_module"]

# What reads (or changes) the process environment: names in ``os``, and ``Path``'s classmethods.
_OS_ENVIRONMENT = frozenset(
    {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv", "getcwd", "getcwdb"}
)
_PATH_ENVIRONMENT = frozenset({"home", "cwd"})
ENVIRONMENT_READS = tuple(sorted(f"os.{n}" for n in _OS_ENVIRONMENT)) + ("Path.cwd()", "Path.home()")


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportEdge:
    """One import of a module of the package by another."""

    source: str
    target: str
    line: int
    lazy: bool = False  # inside a function body
    function: str | None = None
    type_checking: bool = False
    beyond_top: bool = False  # a relative import that climbs out of the package


@dataclass(frozen=True, slots=True, kw_only=True)
class FunctionSpan:
    """A function and how many lines it spans (decorators excluded)."""

    name: str
    line: int
    lines: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ParsedModule:
    """What the linter needs from one file."""

    name: str
    path: Path
    lines: int
    imports: tuple[ImportEdge, ...]
    functions: tuple[FunctionSpan, ...]
    is_package: bool
    environment_reads: tuple[tuple[str, int], ...] = ()  # (what, line)


def module_name(path: Path, package_root: Path, package: str) -> str:
    """``package_root/a/b.py`` -> ``package.a.b``; ``a/__init__.py`` -> ``package.a``."""
    parts = list(path.relative_to(package_root).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _Collector(ast.NodeVisitor):
    def __init__(self) -> None:
        self.found: list[tuple[ast.Import | ast.ImportFrom, str | None, bool]] = []
        self.functions: list[FunctionSpan] = []
        self.environment: list[tuple[str, int]] = []
        self._scope: list[str] = []  # enclosing class and function names
        self._function_depth = 0
        self._type_checking = 0

    def _function_node(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        for default in (*node.args.defaults, *node.args.kw_defaults):
            if default is not None:
                self.visit(default)
        qualname = ".".join([*self._scope, node.name])
        end = node.end_lineno or node.lineno
        self.functions.append(FunctionSpan(name=qualname, line=node.lineno, lines=end - node.lineno + 1))
        self._scope.append(node.name)
        self._function_depth += 1
        for statement in node.body:
            self.visit(statement)
        self._function_depth -= 1
        self._scope.pop()

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for expr in (*node.decorator_list, *node.bases, *node.keywords):
            self.visit(expr)
        self._scope.append(node.name)
        for statement in node.body:
            self.visit(statement)
        self._scope.pop()

    visit_FunctionDef = _function_node
    visit_AsyncFunctionDef = _function_node

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            self._type_checking += 1
            for statement in node.body:
                self.visit(statement)
            self._type_checking -= 1
            for statement in node.orelse:
                self.visit(statement)
        else:
            self.generic_visit(node)

    def _record(self, node: ast.Import | ast.ImportFrom) -> None:
        function = ".".join(self._scope) if self._function_depth else None
        self.found.append((node, function, self._type_checking > 0))
        if isinstance(node, ast.ImportFrom) and node.module == "os" and node.level == 0:
            self.environment += [
                (f"os.{a.name}", node.lineno) for a in node.names if a.name in _OS_ENVIRONMENT
            ]

    def visit_Attribute(self, node: ast.Attribute) -> None:
        owner = node.value
        name = (
            owner.id
            if isinstance(owner, ast.Name)
            else (owner.attr if isinstance(owner, ast.Attribute) else "")
        )
        if name == "os" and node.attr in _OS_ENVIRONMENT:
            self.environment.append((f"os.{node.attr}", node.lineno))
        elif name == "Path" and node.attr in _PATH_ENVIRONMENT:
            self.environment.append((f"Path.{node.attr}()", node.lineno))
        self.generic_visit(node)

    visit_Import = _record
    visit_ImportFrom = _record


def _resolve_from(node: ast.ImportFrom, current: str, is_package: bool) -> tuple[str | None, bool]:
    if node.level == 0:
        return node.module, False
    base = current.split(".") if is_package else current.split(".")[:-1]
    climb = node.level - 1
    if climb >= len(base):
        return None, True
    base = base[: len(base) - climb] if climb else base
    return ".".join([*base, *([node.module] if node.module else [])]), False


def _targets(
    node: ast.Import | ast.ImportFrom, current: str, is_package: bool, known: frozenset[str]
) -> Iterator[tuple[str | None, bool]]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name, False
        return
    base, beyond = _resolve_from(node, current, is_package)
    if base is None:
        yield None, beyond
        return
    subs = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known]
    if subs:
        yield from ((sub, False) for sub in subs)
    if len(subs) < len(node.names):
        yield base, False


def parse_module(path: Path, name: str, source: str, known: frozenset[str]) -> ParsedModule:
    """Read one module's imports and function lengths; :class:`SyntaxError` propagates."""
    tree = ast.parse(source, filename=str(path))
    collector = _Collector()
    collector.visit(tree)
    is_package = path.name == "__init__.py"
    edges: list[ImportEdge] = []
    for node, function, type_checking in collector.found:
        for target, beyond in _targets(node, name, is_package, known):
            edges.append(
                ImportEdge(
                    source=name,
                    target=target or "." * getattr(node, "level", 0),
                    line=node.lineno,
                    lazy=function is not None,
                    function=function,
                    type_checking=type_checking,
                    beyond_top=beyond,
                )
            )
    return ParsedModule(
        name=name,
        path=path,
        lines=len(source.splitlines()),
        imports=tuple(edges),
        functions=tuple(collector.functions),
        is_package=is_package,
        environment_reads=tuple(collector.environment),
    )

"""The rules: imports only go down the declared layers; files and functions stay small.

Codes: ``AR101`` import of a higher layer at import time, ``AR102`` the same inside a function
(lazy), ``AR104`` the same under ``if TYPE_CHECKING:``, ``AR103`` relative import beyond the
package, ``AR201`` file too long, ``AR202`` function too long, ``AR301`` module in no layer,
``AR302`` layer entry that matches no module, ``AR401`` a module below the top layer that is not
one of ``environment_readers`` reads the process environment (``os.environ``, ``os.getenv``,
``Path.cwd()``...), ``AR105`` import cycle (see :mod:`skillshelf.archlint.cycles` for what counts),
``AR001`` syntax error, ``AR002`` unreadable file.
Every finding carries a ``fix`` that says what to do instead.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from skillshelf.archlint.config import ArchConfig, Level
from skillshelf.archlint.cycles import find_cycles
from skillshelf.archlint.imports import ImportEdge, ParsedModule, module_name, parse_module
from skillshelf.diagnostics import Diagnostic, Severity, diagnostic, sort_diagnostics
from skillshelf.errors import reason
from skillshelf.fileio import MAX_SETTINGS_BYTES, read_regular_text

__all__ = ["ArchReport", "Layers", "lint_package"]

_SEVERITY = {"error": Severity.ERROR, "warning": Severity.WARNING}


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchReport:
    """The outcome of one run."""

    package: str
    root: Path
    config_file: Path | None
    files: int
    imports: int
    diagnostics: tuple[Diagnostic, ...]

    @property
    def errors(self) -> int:
        return sum(d.severity is Severity.ERROR for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return sum(d.severity is Severity.WARNING for d in self.diagnostics)

    def to_dict(self) -> dict[str, object]:
        return {
            "package": self.package,
            "root": str(self.root),
            "config_file": str(self.config_file) if self.config_file else None,
            "files": self.files,
            "imports": self.imports,
            "errors": self.errors,
            "warnings": self.warnings,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


class Layers:
    """Maps a module to its layer by the longest declared prefix."""

    def __init__(self, layers: Sequence[Sequence[str]], package: str) -> None:
        self.package = package
        self.names = tuple(", ".join(layer) for layer in layers)
        self.entries: dict[str, int] = {}
        for index, layer in enumerate(layers):
            for entry in layer:
                self.entries[self.qualify(entry)] = index

    def qualify(self, entry: str) -> str:
        if entry == self.package or entry.startswith(f"{self.package}."):
            return entry
        return f"{self.package}.{entry}"

    def of(self, module: str) -> int | None:
        parts = module.split(".")
        for size in range(len(parts), 0, -1):
            found = self.entries.get(".".join(parts[:size]))
            if found is not None:
                return found
        return None

    def label(self, index: int) -> str:
        return f"layer {index + 1} ({self.names[index]})"

    def short(self, module: str) -> str:
        return module.removeprefix(f"{self.package}.")


def _fix_text(edge: ImportEdge, layers: Layers, source_layer: int) -> str:
    src, tgt = layers.short(edge.source), layers.short(edge.target)
    home = layers.names[source_layer]
    fix = (
        f"do not import {tgt} from {src}. Move the code {src} needs out of {tgt} down into "
        f"layer {source_layer + 1} ({home}) or lower, or invert the dependency: declare a parameter or a "
        f"Protocol in {src} and let {tgt} (or a caller above both) pass the implementation in."
    )
    if edge.type_checking:
        return (
            f"even a type-only import ties the layers together; {fix} "
            "Moving the shared type down is usually enough."
        )
    if edge.lazy:
        return f"an import inside {edge.function}() still makes {src} depend on {tgt}; {fix}"
    return fix


def _allowed(edge: ImportEdge, config: ArchConfig, layers: Layers) -> bool:
    for allowance in config.allow:
        src, tgt = layers.qualify(allowance.source), layers.qualify(allowance.target)
        if (edge.source == src or edge.source.startswith(f"{src}.")) and (
            edge.target == tgt or edge.target.startswith(f"{tgt}.")
        ):
            return True
    return False


def _edge_level(edge: ImportEdge, config: ArchConfig) -> tuple[str, Level]:
    if edge.type_checking:
        return "AR104", config.type_checking_imports
    if edge.lazy:
        return "AR102", config.lazy_imports
    return "AR101", "error"


def _check_edge(
    edge: ImportEdge, module: ParsedModule, config: ArchConfig, layers: Layers
) -> Diagnostic | None:
    if edge.beyond_top:
        return diagnostic(
            "AR103",
            Severity.ERROR,
            f"relative import {edge.target!r} climbs out of the package {layers.package}",
            f"import it by its absolute name, or move the module inside {layers.package}",
            module.path,
            edge.line,
        )
    if edge.target != layers.package and not edge.target.startswith(f"{layers.package}."):
        return None
    src_layer, tgt_layer = layers.of(edge.source), layers.of(edge.target)
    if src_layer is None or tgt_layer is None or tgt_layer <= src_layer or _allowed(edge, config, layers):
        return None
    code, level = _edge_level(edge, config)
    if level == "ignore":
        return None
    how = {
        "AR101": "imports",
        "AR102": f"imports (inside {edge.function}())",
        "AR104": "imports (for type checking)",
    }[code]
    message = (
        f"{layers.short(edge.source)} in {layers.label(src_layer)} {how} {layers.short(edge.target)} "
        f"from the higher {layers.label(tgt_layer)}"
    )
    return diagnostic(
        code, _SEVERITY[level], message, _fix_text(edge, layers, src_layer), module.path, edge.line
    )


def _size_checks(module: ParsedModule, config: ArchConfig) -> Iterator[Diagnostic]:
    if module.lines > config.max_file_lines:
        yield diagnostic(
            "AR201",
            Severity.WARNING,
            f"{module.lines} lines, over the limit of {config.max_file_lines}",
            "split the module along a seam: move a group of functions that work together into a sibling "
            "module and import it from here",
            module.path,
        )
    for function in module.functions:
        if function.lines > config.max_function_lines:
            yield diagnostic(
                "AR202",
                Severity.WARNING,
                f"function {function.name}() is {function.lines} lines long, over the limit of "
                f"{config.max_function_lines}",
                "extract its steps into small named helper functions (one job each) and call them in order",
                module.path,
                function.line,
            )


def _environment_checks(module: ParsedModule, config: ArchConfig, layers: Layers) -> Iterator[Diagnostic]:
    readers = config.environment_readers
    if readers is None or not module.environment_reads:
        return
    allowed = [layers.qualify(r) for r in readers]
    if any(module.name == r or module.name.startswith(f"{r}.") for r in allowed):
        return
    top = len(layers.names) - 1
    if layers.of(module.name) == top:
        return
    who = ", ".join(readers) or "no module"
    for what, line in module.environment_reads:
        yield diagnostic(
            "AR401",
            Severity.ERROR,
            f"{layers.short(module.name)} reads the process environment ({what}) below the top layer",
            f"take the value from a parameter instead (in skillshelf: an Env, whose environ, cwd, home and "
            f"dirs are read once by Env.from_os); only {who} and {layers.label(top)} read the environment",
            module.path,
            line,
        )


def _python_files(folder: Path, package_root: Path, exclude: Sequence[str]) -> Iterator[Path]:
    if folder.is_file():
        yield folder
        return
    for current, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(files):
            path = Path(current) / name
            rel = path.relative_to(package_root).as_posix()
            if name.endswith(".py") and not any(fnmatch.fnmatch(rel, pattern) for pattern in exclude):
                yield path


def _read(path: Path, name: str, known: frozenset[str], out: list[Diagnostic]) -> ParsedModule | None:
    try:
        source = read_regular_text(path, limit=MAX_SETTINGS_BYTES)
    except (OSError, UnicodeDecodeError) as exc:
        out.append(
            diagnostic(
                "AR002",
                Severity.ERROR,
                f"cannot read {name}: {reason(exc)}",
                "a module must be a regular UTF-8 text file",
                path,
            )
        )
        return None
    try:
        return parse_module(path, name, source, known)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        line = exc.lineno if isinstance(exc, SyntaxError) else None
        why = str(exc) if isinstance(exc, (SyntaxError, ValueError)) else "nested too deeply to read"
        out.append(
            diagnostic(
                "AR001",
                Severity.ERROR,
                f"syntax error: {why}",
                "fix the syntax so the imports can be read",
                path,
                line,
            )
        )
        return None


def _unused_entries(layers: Layers, known: frozenset[str], config: ArchConfig) -> Iterator[Diagnostic]:
    for entry in layers.entries:
        if not any(m == entry or m.startswith(f"{entry}.") for m in known):
            yield diagnostic(
                "AR302",
                Severity.WARNING,
                f"layer entry {layers.short(entry)!r} matches no module",
                "fix the spelling or remove the entry from `layers`",
                config.source or Path("archlint.toml"),
            )


def _edge_note(edge: ImportEdge, layers: Layers) -> str:
    how = (
        " (for type checking)"
        if edge.type_checking
        else (f" (inside {edge.function}())" if edge.lazy else "")
    )
    return f"{layers.short(edge.source)} imports {layers.short(edge.target)}{how}, line {edge.line}"


def _cycle_checks(
    modules: Sequence[ParsedModule], wanted: set[Path], config: ArchConfig, layers: Layers
) -> Iterator[Diagnostic]:
    if config.cycles == "ignore":
        return
    paths = {m.name: m.path for m in modules}
    for found in find_cycles(modules):
        # shown at the first module of the loop that is being linted
        first = next((i for i, edge in enumerate(found) if paths[edge.source] in wanted), None)
        if first is None:
            continue
        cycle = (*found[first:], *found[:first])
        names = " -> ".join(layers.short(e.source) for e in (*cycle, cycle[0]))
        hidden = any(e.lazy or e.type_checking for e in cycle)
        yield diagnostic(
            "AR105",
            _SEVERITY[config.cycles],
            f"import cycle {names}: " + "; ".join(_edge_note(e, layers) for e in cycle),
            "break the cycle: move what the modules share (often a type or a small function) into a "
            "module below them, or pass it in (a parameter, a Protocol, a registry filled from above)"
            + (
                "; an import inside a function or under TYPE_CHECKING hides a cycle, it does not end it"
                if hidden
                else ""
            ),
            paths[cycle[0].source],
            cycle[0].line,
        )


def _module_checks(module: ParsedModule, config: ArchConfig, layers: Layers) -> Iterator[Diagnostic]:
    if module.name != layers.package and layers.of(module.name) is None:
        yield diagnostic(
            "AR301",
            Severity.WARNING,
            f"module {layers.short(module.name)} is in no layer",
            f"add {layers.short(module.name)!r} (or its package) to a layer in `layers`",
            module.path,
        )
    yield from (d for e in module.imports if (d := _check_edge(e, module, config, layers)) is not None)
    yield from _size_checks(module, config)
    yield from _environment_checks(module, config, layers)


def lint_package(
    package_root: Path, config: ArchConfig, *, only: Path | None = None, package: str | None = None
) -> ArchReport:
    """Check every module of the package at ``package_root`` (or just those under ``only``)."""
    name = package or config.package or package_root.name
    everything = list(_python_files(package_root, package_root, config.exclude))
    known = frozenset(module_name(p, package_root, name) for p in everything)
    layers = Layers(config.layers, name)
    wanted = set(_python_files(only, package_root, config.exclude)) if only is not None else set(everything)
    diags: list[Diagnostic] = [] if only is not None else list(_unused_entries(layers, known, config))
    modules: list[ParsedModule] = []
    for path in everything:
        # every module is read (cycles run through the whole package); only the wanted are reported
        module = _read(path, module_name(path, package_root, name), known, diags if path in wanted else [])
        if module is None:
            continue
        modules.append(module)
        if path in wanted:
            diags.extend(_module_checks(module, config, layers))
    diags.extend(_cycle_checks(modules, wanted, config, layers))
    return ArchReport(
        package=name,
        root=package_root,
        config_file=config.source,
        files=len(wanted),
        imports=sum(len(m.imports) for m in modules if m.path in wanted),
        diagnostics=tuple(sort_diagnostics(diags)),
    )

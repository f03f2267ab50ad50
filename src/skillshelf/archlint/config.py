"""Where layers are declared: ``[tool.skillshelf.archlint]`` in ``pyproject.toml`` or the
top level of ``.skillshelf/archlint.toml``, found by walking up from the linted path.

Example::

    [tool.skillshelf.archlint]
    root = "src/skillshelf"          # the package folder (relative to this file)
    layers = [                       # lowest first; a module may import its own layer or lower
      ["errors", "diagnostics", "env"],
      ["skills"],
      ["cli"],
    ]
    lazy_imports = "error"           # imports inside functions: "error" | "warning" | "ignore"
    type_checking_imports = "ignore" # imports under `if TYPE_CHECKING:`
    cycles = "error"                 # modules that import each other (any kind of import counts)
    max_file_lines = 400             # warnings
    max_function_lines = 80
    exclude = ["skills/builtin/data/*"]
    allow = [{ from = "skills.cache", to = "select.index", reason = "..." }]
    environment_readers = ["env"]    # besides the top layer, the only modules that may read the
                                     # process environment (os.environ, Path.cwd()...); unset: no check
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillshelf.errors import ConfigError, reason
from skillshelf.fileio import MAX_SETTINGS_BYTES, read_regular_text

__all__ = ["Allowance", "ArchConfig", "Level", "find_config", "parse_config"]

Level = Literal["error", "warning", "ignore"]
_LEVELS = ("error", "warning", "ignore")
_KEYS = frozenset(
    {
        "root",
        "package",
        "layers",
        "lazy_imports",
        "type_checking_imports",
        "max_file_lines",
        "max_function_lines",
        "exclude",
        "allow",
        "environment_readers",
        "cycles",
    }
)
_EXAMPLE = 'layers = [["errors", "env"], ["skills"], ["cli"]]  (lowest layer first)'


@dataclass(frozen=True, slots=True, kw_only=True)
class Allowance:
    """A declared exception to the layering: ``source`` may import ``target`` because ``reason``."""

    source: str
    target: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchConfig:
    """The layering rules and limits for one package."""

    layers: tuple[tuple[str, ...], ...]
    root: Path | None = None
    package: str | None = None
    lazy_imports: Level = "error"
    type_checking_imports: Level = "ignore"
    max_file_lines: int = 400
    max_function_lines: int = 80
    exclude: tuple[str, ...] = ()
    allow: tuple[Allowance, ...] = ()
    environment_readers: tuple[str, ...] | None = None  # None: environment reads are not checked
    cycles: Level = "error"
    source: Path | None = None  # the file the config came from


def _bad(path: Path | None, message: str, hint: str) -> ConfigError:
    return ConfigError(message, path=path, hint=hint, code="AR010")


def _layers(raw: object, path: Path | None) -> tuple[tuple[str, ...], ...]:
    if not isinstance(raw, list) or not raw:
        raise _bad(
            path, "archlint: `layers` must be a non-empty list of lists of module names", f"write {_EXAMPLE}"
        )
    out: list[tuple[str, ...]] = []
    seen: dict[str, int] = {}
    for index, layer in enumerate(raw):
        names = [layer] if isinstance(layer, str) else layer
        if (
            not isinstance(names, list)
            or not names
            or not all(isinstance(n, str) and n.strip() for n in names)
        ):
            raise _bad(
                path, f"archlint: layer {index + 1} must be a list of module names", f"write {_EXAMPLE}"
            )
        for name in names:
            if name in seen:
                raise _bad(
                    path,
                    f"archlint: {name!r} is in layer {seen[name] + 1} and layer {index + 1}",
                    "put each module in one layer only",
                )
            seen[name] = index
        out.append(tuple(n.strip() for n in names))
    return tuple(out)


def _level(data: Mapping[str, object], key: str, default: Level, path: Path | None) -> Level:
    value = data.get(key, default)
    if value not in _LEVELS:
        raise _bad(path, f"archlint: `{key}` is {value!r}", f"use one of {', '.join(_LEVELS)}")
    return value  # type: ignore[return-value]


def _positive(data: Mapping[str, object], key: str, default: int, path: Path | None) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise _bad(
            path, f"archlint: `{key}` must be a positive integer, not {value!r}", f"e.g. {key} = {default}"
        )
    return value


def _allow(raw: object, path: Path | None) -> tuple[Allowance, ...]:
    if not isinstance(raw, list):
        raise _bad(
            path,
            "archlint: `allow` must be a list of tables",
            'allow = [{ from = "a", to = "b", reason = "why" }]',
        )
    out = []
    for item in raw:
        if not isinstance(item, Mapping) or not all(
            isinstance(item.get(k), str) for k in ("from", "to", "reason")
        ):
            raise _bad(
                path,
                f"archlint: bad `allow` entry {item!r}",
                "each entry needs string keys from, to and reason",
            )
        out.append(Allowance(source=item["from"], target=item["to"], reason=item["reason"]))
    return tuple(out)


def parse_config(data: Mapping[str, object], *, path: Path | None = None) -> ArchConfig:
    """Build an :class:`ArchConfig` from the table's values; raise :class:`ConfigError` when unusable."""
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise _bad(
            path, f"archlint: unknown key(s) {', '.join(unknown)}", f"known keys: {', '.join(sorted(_KEYS))}"
        )
    root = data.get("root")
    package = data.get("package")
    exclude = data.get("exclude", [])
    if root is not None and not isinstance(root, str):
        raise _bad(path, "archlint: `root` must be a string path", 'e.g. root = "src/mypackage"')
    if package is not None and not isinstance(package, str):
        raise _bad(path, "archlint: `package` must be a string", 'e.g. package = "mypackage"')
    if not isinstance(exclude, list) or not all(isinstance(e, str) for e in exclude):
        raise _bad(path, "archlint: `exclude` must be a list of glob strings", 'e.g. exclude = ["vendor/*"]')
    base = (
        path.parent.parent
        if path is not None and path.parent.name == ".skillshelf"
        else (path.parent if path else None)
    )
    return ArchConfig(
        layers=_layers(data.get("layers"), path),
        root=(base / root if base is not None else Path(root)) if isinstance(root, str) else None,
        package=package,
        lazy_imports=_level(data, "lazy_imports", "error", path),
        type_checking_imports=_level(data, "type_checking_imports", "ignore", path),
        max_file_lines=_positive(data, "max_file_lines", 400, path),
        max_function_lines=_positive(data, "max_function_lines", 80, path),
        exclude=tuple(exclude),
        allow=_allow(data.get("allow", []), path),
        environment_readers=_readers(data.get("environment_readers"), path),
        cycles=_level(data, "cycles", "error", path),
        source=path,
    )


def _readers(raw: object, path: Path | None) -> tuple[str, ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(n, str) and n.strip() for n in raw):
        raise _bad(
            path,
            "archlint: `environment_readers` must be a list of module names",
            'e.g. environment_readers = ["env"]',
        )
    return tuple(n.strip() for n in raw)


def _load_toml(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(read_regular_text(path, limit=MAX_SETTINGS_BYTES))
    except tomllib.TOMLDecodeError as exc:
        raise _bad(path, f"not valid TOML: {exc}", "fix the syntax at the line shown") from exc
    except RecursionError as exc:
        raise _bad(path, "not valid TOML: nested too deeply", "flatten the nested value") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise _bad(path, f"cannot read: {reason(exc)}", "check the file exists and is UTF-8 text") from exc


def _table(path: Path) -> Mapping[str, object] | None:
    data = _load_toml(path)
    if path.name != "pyproject.toml":
        return data
    tool = data.get("tool")
    section = tool.get("skillshelf") if isinstance(tool, Mapping) else None
    archlint = section.get("archlint") if isinstance(section, Mapping) else None
    if archlint is not None and not isinstance(archlint, Mapping):
        raise _bad(path, "[tool.skillshelf.archlint] must be a table", f"write {_EXAMPLE} under it")
    return archlint


def find_config(start: Path, *, explicit: Path | None = None) -> ArchConfig:
    """The nearest archlint config at or above ``start`` (or ``explicit``)."""
    if explicit is not None:
        table = _table(explicit)
        if table is None:
            raise _bad(explicit, "no [tool.skillshelf.archlint] table here", f"add one with {_EXAMPLE}")
        return parse_config(table, path=explicit)
    folder = start if start.is_dir() else start.parent
    for candidate in (folder.absolute(), *folder.absolute().parents):
        for path in (candidate / ".skillshelf" / "archlint.toml", candidate / "pyproject.toml"):
            if path.is_file():
                table = _table(path)
                if table is not None:
                    return parse_config(table, path=path)
    raise ConfigError(
        f"no layers declared for {start}",
        hint=(
            f"add [tool.skillshelf.archlint] to pyproject.toml (or .skillshelf/archlint.toml) with {_EXAMPLE}"
        ),
        code="AR011",
    )

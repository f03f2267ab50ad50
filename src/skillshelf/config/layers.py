"""Reading configuration layers: one TOML file (or the ``-c`` overrides) -> one checked layer.

Layers, lowest precedence first (:class:`LayerKind` is ordered the same way):

* ``system``: ``/etc/skillshelf/config.toml`` (``Env.system_config_dir``)
* ``codex``: Codex's own ``$CODEX_HOME/config.toml``; only its ``[[skills.config]]`` is used
* ``user``: ``config.toml`` in the user config folder (``Env.dirs.config``)
* ``project``: ``.skillshelf/config.toml`` in each folder from the project root (found as
  discovery finds it, :func:`~skillshelf.config.loader.root_markers`) to the cwd
* ``runtime``: ``-c key=value`` (the value is TOML, or a plain string if it does not parse)

A file that cannot be read or parsed gives one diagnostic with its file, line and a fix, and
the layer is skipped; it never stops the other layers from loading. A path that is there but
cannot be read as a file (a folder, a FIFO, a symlink loop or a link to nothing, a folder without
permission on the way) is such a file (``CF101``), so a layer that may hold requirements fails
closed (a system layer withholds every skill, :func:`~skillshelf.config.guards.withheld_skills`;
install and update allow no source, :mod:`skillshelf.install.allowed`); only a path with nothing
at all is "no file" (and, in Codex's config as Codex reads it, a link to nothing).
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from types import MappingProxyType

from skillshelf.config.modes import SkillRule, parse_rule
from skillshelf.config.tomlmap import KeyPath, find_line, key_lines, parse_dotted_key
from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.errors import reason
from skillshelf.fileio import BYTE_ORDER_MARK, NotRegularFile, open_regular

__all__ = ["ConfigLayer", "LayerKind", "config_present", "read_layer", "runtime_layer", "with_fix"]

MAX_CONFIG_BYTES = 1024 * 1024
#: Tables and arrays inside one another: far more than any config needs, far fewer than the
#: recursive merge and checks could walk.
MAX_DEPTH = 64
_AT_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")


class LayerKind(IntEnum):
    """Where a layer comes from; a higher value takes precedence."""

    SYSTEM = 0
    CODEX = 1
    USER = 2
    PROJECT = 3
    RUNTIME = 4

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigLayer:
    """One layer: its checked values, its skill rules, and whether it takes effect."""

    kind: LayerKind
    path: Path | None
    folder: Path
    values: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}), hash=False)
    rules: tuple[SkillRule, ...] = ()
    lines: Mapping[KeyPath, int] = field(default_factory=lambda: MappingProxyType({}), hash=False)
    exists: bool = True
    loaded: bool = True
    enabled: bool = True
    disabled_cause: str | None = None  # why a layer read is off (``enabled=False``)
    disabled_fix: str | None = None  # ... and how to turn it on, when the cause has a way
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def disabled_reason(self) -> str | None:
        """Why the layer is off, with the way to turn it on (:func:`with_fix`); None when it is not."""
        return None if self.disabled_cause is None else with_fix(self.disabled_cause, self.disabled_fix)

    @property
    def label(self) -> str:
        if self.kind is LayerKind.PROJECT:
            return f"project:{self.folder.parent if self.folder.name == '.skillshelf' else self.folder}"
        return self.kind.label

    @property
    def active(self) -> bool:
        """Read without error and taking effect."""
        return self.exists and self.loaded and self.enabled

    def line_of(self, path: KeyPath) -> int | None:
        return find_line(self.lines, path)

    def to_dict(self) -> dict[str, object]:
        return {
            "layer": self.label,
            "kind": self.kind.label,
            "path": str(self.path) if self.path else None,
            "exists": self.exists,
            "loaded": self.loaded,
            "enabled": self.enabled,
            "disabled_reason": self.disabled_reason,
            "rules": [rule.to_dict() for rule in self.rules],
        }


def with_fix(cause: str, fix: str | None) -> str:
    """A reason said as one sentence: ``cause`` then ``fix`` (``project not trusted; run ...``)."""
    return cause if fix is None else f"{cause}; {fix}"


def _read_text(path: Path) -> tuple[str | None, Diagnostic | None]:
    try:
        with open_regular(path) as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        return None, _unreadable(path, exc)
    if len(data) > MAX_CONFIG_BYTES:
        return None, diagnostic(
            "CF101",
            Severity.ERROR,
            f"config file is larger than {MAX_CONFIG_BYTES} bytes; layer skipped",
            "a config file should be a few kilobytes: check that this is the right file",
            path,
        )
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, diagnostic(
            "CF101",
            Severity.ERROR,
            "config file is not valid UTF-8; layer skipped",
            "re-save the file as UTF-8 (TOML files must be UTF-8)",
            path,
            line,
        )


def _unreadable(path: Path, exc: OSError) -> Diagnostic:
    """``CF101`` for a config path that is there in some form but cannot be read as a file."""
    if isinstance(exc, NotRegularFile):
        kind = "a folder" if os.path.isdir(path) else "a FIFO, socket or device"
        return diagnostic(
            "CF101",
            Severity.ERROR,
            f"config path is {kind}, not a file; layer skipped",
            "move it away (a config.toml must be a regular file)",
            path,
        )
    if exc.errno == errno.ELOOP:
        message, fix = "config file is a symlink loop", "remove the link, or point it at a real file"
    elif exc.errno in (errno.ENOENT, errno.ENOTDIR) and os.path.islink(path):
        message, fix = "config file is a symlink to nothing", "remove the link, or point it at a real file"
    else:
        message, fix = (
            f"cannot read config file: {reason(exc)}",
            "check the permissions of the file and its folders",
        )
    return diagnostic("CF101", Severity.ERROR, f"{message}; layer skipped", fix, path)


def config_present(path: Path) -> bool | OSError:
    """Whether there is anything at ``path`` (a file, a folder, a link, even a broken one); the
    error when that cannot be told (a folder on the way cannot be entered, a loop of links)."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        return exc
    return True


def _dangling(path: Path) -> bool:
    """Whether ``path`` is a symlink to nothing (not a loop)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return os.path.islink(path)
    except OSError:
        return False
    return False


def parse_toml(text: str, path: Path | None) -> tuple[dict[str, object] | None, Diagnostic | None]:
    """Parse TOML; a syntax error, or nesting deeper than :data:`MAX_DEPTH`, becomes a ``CF100``
    diagnostic (with its line when the parser gives one)."""
    import tomllib  # only when a layer exists: most runs have no config file at all

    try:
        data = tomllib.loads(text.removeprefix(BYTE_ORDER_MARK))
    except RecursionError:
        return None, _too_deep(path)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _AT_LINE.search(message)
        line = int(found.group(1)) if found else None
        problem = _AT_LINE.sub("", message).strip()
        fix = (
            "fix the TOML syntax on that line (strings need quotes, keys need `key = value`); "
            "the rest of this layer is skipped until then"
        )
        return None, diagnostic(
            "CF100", Severity.ERROR, f"TOML syntax error: {problem}; layer skipped", fix, path, line
        )
    too_deep = nesting_depth(data, stop=MAX_DEPTH + 1) > MAX_DEPTH + 1  # the document's own table: no level
    return (None, _too_deep(path)) if too_deep else (data, None)


def _too_deep(path: Path | None) -> Diagnostic:
    return diagnostic(
        "CF100",
        Severity.ERROR,
        f"TOML nested too deeply to read (more than {MAX_DEPTH} tables, arrays or inline tables "
        "inside one another); layer skipped",
        "flatten the nested value: a config needs a few levels at most",
        path,
    )


def nesting_depth(value: object, *, stop: int = MAX_DEPTH) -> int:
    """How many tables and arrays nest in ``value`` (0 for a plain value), walked with a stack;
    the walk ends as soon as the depth passes ``stop``."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack and deepest <= stop:
        node, level = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        deepest = max(deepest, level + 1)
        stack.extend((child, level + 1) for child in children)
    return deepest


def read_layer(kind: LayerKind, path: Path, *, home: Path, only_rules: bool = False) -> ConfigLayer:
    """Read one config file into a layer: ``exists=False`` when nothing is at ``path``;
    ``loaded=False`` with a ``CF101`` when something is there that cannot be read as a file (a
    folder, FIFO, symlink loop or dangling link, a file or folder without permission), so that a
    layer which may hold requirements fails closed."""
    folder = path.parent
    present = config_present(path)
    if present is False:
        return ConfigLayer(kind=kind, path=path, folder=folder, exists=False)
    if isinstance(present, OSError):
        unreadable = (_unreadable(path, present),)
        return ConfigLayer(kind=kind, path=path, folder=folder, loaded=False, diagnostics=unreadable)
    text, problem = _read_text(path)
    if problem is not None and kind is LayerKind.CODEX and _dangling(path):
        return ConfigLayer(kind=kind, path=path, folder=folder, exists=False)  # Codex reads it as no file
    data = None
    if text is not None:
        data, problem = parse_toml(text, path)
    if data is None or text is None:
        return ConfigLayer(
            kind=kind, path=path, folder=folder, loaded=False, diagnostics=(problem,) if problem else ()
        )
    return build_layer(
        kind, data, path=path, folder=folder, lines=key_lines(text), home=home, only_rules=only_rules
    )


def build_layer(
    kind: LayerKind,
    data: Mapping[str, object],
    *,
    path: Path | None,
    folder: Path,
    lines: Mapping[KeyPath, int],
    home: Path,
    only_rules: bool = False,
) -> ConfigLayer:
    """Check parsed values and pull out the skill rules."""
    skills = data.get("skills")
    raw_rules = skills.get("config") if isinstance(skills, dict) else None
    diags: list[Diagnostic] = []
    rules = _rules(raw_rules, kind=kind, path=path, folder=folder, lines=lines, diags=diags)
    if only_rules:
        return ConfigLayer(
            kind=kind, path=path, folder=folder, rules=rules, lines=lines, diagnostics=tuple(diags)
        )
    if not data:  # no file, no override: nothing to check (and the schema stays unimported)
        return ConfigLayer(
            kind=kind, path=path, folder=folder, rules=rules, lines=lines, diagnostics=tuple(diags)
        )
    from skillshelf.config.schema import check_layer

    values, found = check_layer(data, file=path, lines=lines, base=folder, home=home)
    diags[:0] = found
    skills_values = values.get("skills")
    if isinstance(skills_values, dict):
        skills_values.pop("config", None)
        if not skills_values:
            values.pop("skills")
    return ConfigLayer(
        kind=kind, path=path, folder=folder, values=values, rules=rules, lines=lines, diagnostics=tuple(diags)
    )


def _rules(
    raw: object,
    *,
    kind: LayerKind,
    path: Path | None,
    folder: Path,
    lines: Mapping[KeyPath, int],
    diags: list[Diagnostic],
) -> tuple[SkillRule, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        diags.append(
            Diagnostic(
                code="CF102",
                severity=Severity.WARNING,
                message="`skills.config` must be a list of tables",
                fix='write each entry as a [[skills.config]] table with name = "..." and mode = "..."',
                path=path,
                line=find_line(lines, ("skills", "config")),
                field="skills.config",
            )
        )
        return ()
    label = (
        "runtime" if kind is LayerKind.RUNTIME else kind.label if path is None else f"{kind.label} ({path})"
    )
    rules: list[SkillRule] = []
    for index, entry in enumerate(raw):
        rule, problem = parse_rule(
            entry, base=folder, source=label, file=path, line=find_line(lines, ("skills", "config", index))
        )
        if problem is not None:
            diags.append(problem)
        if rule is not None:
            rules.append(rule)
    return tuple(rules)


def parse_override(text: str) -> tuple[tuple[str, ...], object] | None:
    """``key.path=value`` -> ``(keys, value)``; the value is TOML, else the raw string. None when
    it cannot be read, or its keys and value nest deeper than :data:`MAX_DEPTH`."""
    key, sep, raw = text.partition("=")
    keys = parse_dotted_key(key.strip()) if sep else None
    if keys is None:
        return None
    raw = raw.strip()
    import tomllib

    try:
        value: object = tomllib.loads(f"v = {raw}")["v"]
    except RecursionError:
        return None
    except tomllib.TOMLDecodeError:
        value = raw
    return None if len(keys) - 1 + nesting_depth(value) > MAX_DEPTH else (keys, value)


def runtime_layer(overrides: Sequence[str], *, cwd: Path, home: Path) -> ConfigLayer:
    """The ``-c key=value`` layer; relative paths resolve against the cwd."""
    data: dict[str, object] = {}
    diags: list[Diagnostic] = []
    for text in overrides:
        parsed = parse_override(text)
        if parsed is None:
            diags.append(
                Diagnostic(
                    code="CF108",
                    severity=Severity.ERROR,
                    message=f"cannot read override {text!r}; ignored",
                    fix="write -c key=value, e.g. -c catalog.budget_tokens=4000 or -c 'skills.roots=[\"x\"]'",
                )
            )
            continue
        keys, value = parsed
        _set(data, keys, value)
    layer = build_layer(LayerKind.RUNTIME, data, path=None, folder=cwd, lines={}, home=home)
    return ConfigLayer(
        kind=layer.kind,
        path=None,
        folder=cwd,
        values=layer.values,
        rules=layer.rules,
        diagnostics=(*diags, *layer.diagnostics),
        exists=bool(overrides),
    )


def _set(data: dict[str, object], keys: tuple[str, ...], value: object) -> None:
    node = data
    for key in keys[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = {}
            node[key] = child
        node = child
    node[keys[-1]] = value

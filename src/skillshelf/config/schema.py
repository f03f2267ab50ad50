"""The keys skillshelf's config knows, their types, and the check of one layer against them.

Unknown keys are kept (another version or area may use them) and reported (``CF103``, with
the closest known key of its table, or the table where a key of that name belongs): the first
:data:`MAX_UNKNOWN_REPORTED` of a layer one by one, the rest in one summary. A value of
the wrong type, or a number outside its key's bounds (a token budget of 0, a percent above
100), is dropped from its layer and reported (``CF102``, the fix naming the bounds and, where
the schema knows it, the default), so the default applies. Path values are resolved
against the folder of the file that holds them (``~`` expands to the home folder). Every
finding carries the file and line (one about a ``-c`` override says it was given with ``-c``).
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from skillshelf.config.reference import REFERENCE
from skillshelf.config.requirements import REQUIREMENTS, RequirementKind
from skillshelf.config.tomlmap import KeyPath, find_line
from skillshelf.diagnostics import Diagnostic, Severity

__all__ = ["MAX_UNKNOWN_REPORTED", "SCHEMA", "Spec", "check_layer"]

MAX_UNKNOWN_REPORTED = 10  # unknown keys of one layer reported one by one; the rest in one summary
#: The agent's token settings: the smallest window it can work in, the largest either may be,
#: and the output limit a call asks for when none is set.
MIN_CONTEXT_WINDOW, MAX_TOKENS_SETTING, DEFAULT_MAX_OUTPUT_TOKENS = 2048, 10_000_000, 4096

Kind = Literal["bool", "int", "str", "path", "str_list", "path_list", "table", "open", "rules"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Spec:
    """The type of one key; ``table`` specs list their children, ``open`` accepts anything."""

    kind: Kind
    children: Mapping[str, Spec] = field(default_factory=dict)
    choices: tuple[str, ...] = ()
    choices_of: Callable[[], tuple[str, ...]] | None = None  # a registry's names, read at each check
    minimum: int | None = None
    maximum: int | None = None
    default_of: Callable[[], int] | None = None  # the value that applies without one, read for a finding
    each: Spec | None = None  # for ``table`` specs whose keys are free (e.g. projects)
    help: str = ""  # what the key does; with ``default`` and ``read_by``, the reference (docs/config.md)
    default: str = ""  # the value that applies when no layer sets it, as the reference shows it
    read_by: str = ""  # the commands that read it

    def allowed(self) -> tuple[str, ...]:
        """The values a ``str`` key may take (empty: any)."""
        return self.choices_of() if self.choices_of is not None else self.choices

    def holds(self, number: int) -> bool:
        """Whether an ``int`` key may be ``number`` (within its minimum and maximum)."""
        return (self.minimum is None or number >= self.minimum) and (
            self.maximum is None or number <= self.maximum
        )

    def bounds(self) -> str:
        """The numbers an ``int`` key may be, as words: ``at least 1``, ``from 0 to 100``."""
        if self.maximum is None:
            return f"at least {self.minimum}"
        return f"from {self.minimum or 0} to {self.maximum}"

    def number_fix(self) -> str:
        """The fix for an ``int`` key set to the wrong thing: its bounds and its default."""
        if self.maximum is None and self.default_of is None:
            return _EXAMPLES["int"]
        default = "" if self.default_of is None else f", such as {self.default_of()} (the default)"
        return f"write a whole number {self.bounds()} without quotes{default}"


BOOL, STR, PATH = Spec(kind="bool"), Spec(kind="str"), Spec(kind="path")
STR_LIST, PATH_LIST, OPEN = Spec(kind="str_list"), Spec(kind="path_list"), Spec(kind="open")


def _int(minimum: int = 0, maximum: int | None = None, default_of: Callable[[], int] | None = None) -> Spec:
    return Spec(kind="int", minimum=minimum, maximum=maximum, default_of=default_of)


def _default_min_confidence() -> int:
    from skillshelf.select.ranking import RankingSettings  # only for a finding

    return round(RankingSettings().min_confidence * 100)


def _default_max_suggestions() -> int:
    from skillshelf.select.ranking import RankingSettings  # only for a finding

    return RankingSettings().max_suggestions


def _choice(*choices: str) -> Spec:
    return Spec(kind="str", choices=choices)


def _catalog_formats() -> tuple[str, ...]:
    from skillshelf.skills.catalog import CATALOG_FORMATS  # only when a config names a format

    return CATALOG_FORMATS.names()


def _table(**children: Spec) -> Spec:
    return Spec(kind="table", children=children)


_REQUIREMENT_SPECS = {
    RequirementKind.SET_UNION: STR_LIST,
    RequirementKind.ALLOW_LIST: STR_LIST,
    RequirementKind.FLAG_OFF: BOOL,
    RequirementKind.UPPER_BOUND: _int(1),  # a catalog cap of 0 would leave no catalog at all
}

SCHEMA = _table(
    project_root_markers=STR_LIST,
    skills=_table(
        builtin=BOOL,
        claude=BOOL,
        include_instructions=BOOL,
        roots=PATH_LIST,
        config=Spec(kind="rules"),
        bundled=_table(enabled=BOOL),
        max_context_tokens=_int(1),  # Codex refuses 0 too
    ),
    catalog=_table(
        format=Spec(kind="str", choices_of=_catalog_formats),
        budget_tokens=_int(1),
        context_window=_int(1),
    ),
    instructions=_table(profile=_choice("codex", "claude"), max_bytes=_int(0), fallback_filenames=STR_LIST),
    select=_table(
        min_confidence=_int(0, 100, _default_min_confidence),  # a percent
        max_suggestions=_int(0, default_of=_default_max_suggestions),
    ),
    install=_table(dir=PATH, scope=_choice("user", "project"), agents=_choice("codex", "claude", "all")),
    hooks=_table(
        suggestions=BOOL,
        memory=BOOL,
        session_memory=_choice("auto", "on", "off"),
        memory_run=_choice("auto", "off"),
        usage=BOOL,
        suggestion_tokens=_int(0),
        memory_tokens=_int(0),
        server=BOOL,
        server_idle_minutes=_int(1),
    ),
    projects=Spec(kind="table", each=_table(trust_level=_choice("trusted", "untrusted"))),
    requirements=Spec(kind="table", children={k: _REQUIREMENT_SPECS[v] for k, v in REQUIREMENTS.items()}),
    mcp_servers=OPEN,
    memory=OPEN,
    model=OPEN,
    serve=OPEN,
    agent=_table(
        shadow_metrics=BOOL,
        context_window=_int(MIN_CONTEXT_WINDOW, MAX_TOKENS_SETTING),
        max_output_tokens=_int(1, MAX_TOKENS_SETTING, lambda: DEFAULT_MAX_OUTPUT_TOKENS),
    ),
)


def _documented(spec: Spec, path: str = "") -> Spec:
    """``spec`` and its children with their reference (``REFERENCE``); the check does not read it."""
    children = {key: _documented(child, f"{path}.{key}".lstrip(".")) for key, child in spec.children.items()}
    each = None if spec.each is None else _documented(spec.each, f"{path}.*")
    text, default, read_by = REFERENCE.get(path, ("", "", ""))
    return dataclasses.replace(
        spec, children=children, each=each, help=text, default=default, read_by=read_by
    )


SCHEMA = _documented(SCHEMA)


@functools.cache
def _schema_keys() -> tuple[tuple[str, ...], ...]:
    """:func:`_dotted_keys` of the whole schema, worked out once."""
    return tuple(_dotted_keys(SCHEMA))


def _dotted_keys(spec: Spec, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every key the schema names below ``spec`` (free-keyed tables left out), as key paths."""
    out: list[tuple[str, ...]] = []
    for key, child in spec.children.items():
        out.append((*path, key))
        out += _dotted_keys(child, (*path, key))
    return out


#: Codex's ``config.toml`` keys whose setting skillshelf's config names otherwise (skillshelf reads
#: Codex's own keys from Codex's file; its config takes them under these names).
CODEX_KEYS = {
    "project_doc_max_bytes": "instructions.max_bytes",
    "project_doc_fallback_filenames": "instructions.fallback_filenames",
    "model_context_window": "catalog.context_window",
}


def _unknown_key_fix(key: str, spec: Spec, path: KeyPath) -> str:
    """The fix for an unknown ``key`` in the table ``spec`` at ``path``: skillshelf's name for a
    key of Codex's, else a close key of this table, else a key of that name (or starting with it)
    in another table, else this table's keys."""
    import difflib  # only for an unknown key

    if key in CODEX_KEYS:
        return f"did you mean `{CODEX_KEYS[key]}`? (`{key}` is Codex's name, read from Codex's config.toml)"
    close = difflib.get_close_matches(key, list(spec.children), n=1, cutoff=0.75)
    if close:
        return f"did you mean `{close[0]}`?"
    lowered = key.lower().replace("-", "_")
    elsewhere = [
        _dotted(other)
        for other in _schema_keys()
        if other[:-1] != path
        and (other[-1] == lowered or other[-1].startswith(lowered + "_") or other[-1].endswith("_" + lowered))
    ]
    if elsewhere:
        return f"it belongs in another table: did you mean {' or '.join(f'`{k}`' for k in elsewhere[:3])}?"
    close = difflib.get_close_matches(key, list(spec.children), n=1)
    if close:
        return f"did you mean `{close[0]}`?"
    return f"remove it; known keys here: {', '.join(sorted(spec.children)) or '(none)'}"


_EXAMPLES = {
    "bool": "write true or false (no quotes)",
    "int": "write a whole number without quotes, such as 8000",
    "str": 'write a quoted string, such as "value"',
    "path": 'write a quoted path, such as "skills" (relative to this file\'s folder)',
    "str_list": 'write a list of strings, such as ["a", "b"]',
    "path_list": 'write a list of quoted paths, such as ["skills", "~/more-skills"]',
    "table": "write it as a [table] of keys",
}


@dataclass(slots=True, kw_only=True)
class _Check:
    """State of one layer check (local to :func:`check_layer`)."""

    file: Path | None
    lines: Mapping[KeyPath, int]
    base: Path
    home: Path
    diagnostics: list[Diagnostic] = field(default_factory=list)
    unknown_keys: list[KeyPath] = field(default_factory=list)

    def report(self, code: str, path: KeyPath, message: str, fix: str) -> None:
        """One finding; one about the ``-c`` overrides (no file) says so, as it has no file to name."""
        self.diagnostics.append(
            Diagnostic(
                code=code,
                severity=Severity.WARNING,
                message=message if self.file is not None else f"{message} (given with -c)",
                fix=fix,
                path=self.file,
                line=find_line(self.lines, path),
                field=_dotted(path),
            )
        )

    def table(self, data: Mapping[str, object], spec: Spec, path: KeyPath) -> dict[str, object]:
        out: dict[str, object] = {}
        for key, value in data.items():
            child = spec.each if spec.each is not None else spec.children.get(key)
            if child is None:
                self.unknown(key, spec, path)
                out[key] = value
                continue
            checked = self.value(value, child, (*path, key))
            if checked is not _DROP:
                out[key] = checked
        return out

    def unknown(self, key: str, spec: Spec, path: KeyPath) -> None:
        """``CF103`` for the first :data:`MAX_UNKNOWN_REPORTED` unknown keys; the rest are
        counted (:meth:`unknown_summary`)."""
        self.unknown_keys.append((*path, key))
        if len(self.unknown_keys) <= MAX_UNKNOWN_REPORTED:
            fix = _unknown_key_fix(key, spec, path)
            self.report("CF103", (*path, key), f"unknown config key `{_dotted((*path, key))}`", fix)

    def unknown_summary(self) -> None:
        """One ``CF103`` for the unknown keys past :data:`MAX_UNKNOWN_REPORTED`, at the first of them."""
        more = self.unknown_keys[MAX_UNKNOWN_REPORTED:]
        if more:
            self.report(
                "CF103",
                more[0],
                f"{len(more):,} more unknown config keys (from `{_dotted(more[0])}` on), "
                "not listed one by one",
                "check that this is a skillshelf config file; `docs/config.md` lists the keys it reads",
            )

    def value(self, value: object, spec: Spec, path: KeyPath) -> object:
        kind = spec.kind
        if kind in {"open", "rules"}:
            return value
        if kind == "table":
            if not isinstance(value, dict):
                return self.wrong(value, spec, path)
            checked = self.table(value, spec, path)
            return checked if checked or not value else _DROP
        if kind == "bool":
            return value if isinstance(value, bool) else self.wrong(value, spec, path)
        if kind == "int":
            if not isinstance(value, int) or isinstance(value, bool):
                return self.wrong(value, spec, path)
            if not spec.holds(value):
                fix = f"set it to {spec.minimum} or more" if spec.maximum is None else spec.number_fix()
                self.report("CF102", path, f"`{_dotted(path)}` must be {spec.bounds()}, not {value}", fix)
                return _DROP
            return value
        if kind in {"str", "path"}:
            if not isinstance(value, str):
                return self.wrong(value, spec, path)
            choices = spec.allowed()
            if choices and value not in choices:
                import difflib  # only for a wrong choice

                close = difflib.get_close_matches(value, choices, n=1)
                hint = f'did you mean "{close[0]}"? ' if close else ""
                self.report(
                    "CF102",
                    path,
                    f"`{_dotted(path)}` cannot be {value!r}",
                    f"{hint}use one of: {', '.join(choices)}",
                )
                return _DROP
            return self.resolve(value) if kind == "path" else value
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            return self.wrong(value, spec, path)
        return [self.resolve(item) for item in value] if kind == "path_list" else list(value)

    def wrong(self, value: object, spec: Spec, path: KeyPath) -> object:
        self.report(
            "CF102",
            path,
            f"`{_dotted(path)}` must be {_type_name(spec)}, not {_toml_type(value)}",
            spec.number_fix() if spec.kind == "int" else _EXAMPLES[spec.kind],
        )
        return _DROP

    def resolve(self, text: str) -> str:
        path = Path(text)
        if text.startswith("~"):
            path = self.home / text[2:] if text.startswith("~/") or text == "~" else path
        return os.path.normpath(path if path.is_absolute() else self.base / path)


_DROP = object()


def _dotted(path: KeyPath) -> str:
    return ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in path).replace(".[", "[")


def _type_name(spec: Spec) -> str:
    return {
        "bool": "true or false",
        "int": "a whole number",
        "str": "a string",
        "path": "a path string",
        "str_list": "a list of strings",
        "path_list": "a list of path strings",
        "table": "a table",
    }.get(spec.kind, spec.kind)


def _toml_type(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


def check_layer(
    data: Mapping[str, object], *, file: Path | None, lines: Mapping[KeyPath, int], base: Path, home: Path
) -> tuple[dict[str, object], list[Diagnostic]]:
    """``data`` with wrong-typed values dropped and paths resolved, plus the findings."""
    check = _Check(file=file, lines=lines, base=base, home=home)
    cleaned = check.table(data, SCHEMA, ())
    check.unknown_summary()
    return cleaned, check.diagnostics

"""A cache of parsed skills, so repeated runs do not parse unchanged ``SKILL.md`` files again.

One file in the user cache folder (``Env.dirs.cache``, so ``XDG_CACHE_HOME`` or
``SKILLSHELF_CACHE_DIR`` move it). An entry is keyed by the path of the ``SKILL.md`` as found
and is valid while the file's size, ``mtime_ns`` and ``ctime_ns`` (which a chmod or chown moves:
a file made unreadable is read again, and left out), those of its ``agents/openai.yaml`` and the
way it was read (profile, size cap) are unchanged. A broken cache file is ignored and rewritten;
writes are atomic (temporary file + rename), so parallel runs never see half a file. A
long-lived process keeps the file's content in memory while the file is unchanged
(:mod:`~skillshelf.skills.cache_file`).

The file is in :mod:`marshal` format (plain data only: it cannot run code when read, and loads
twice as fast as JSON); its name carries the Python version, since the format may change with it.
"""

from __future__ import annotations

import marshal
import os
import sys
from pathlib import Path, PosixPath
from types import MappingProxyType
from typing import Any

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.fileio import write_atomic
from skillshelf.skills.cache_file import CacheContent, keep_content, read_content
from skillshelf.skills.model import (
    ClaudeFields,
    Skill,
    SkillInterface,
    SkillPolicy,
    SkillRoot,
    ToolDependency,
)
from skillshelf.skills.slots import slot_setters
from skillshelf.version import __version__

__all__ = ["CACHE_FILE", "SkillCache", "skill_path"]

CACHE_VERSION = 1
CACHE_FILE = f"parsed-skills-v{CACHE_VERSION}-py{sys.version_info[0]}{sys.version_info[1]}.marshal"
MAX_ENTRIES = 50_000
MAX_WALKS = 500

Signature = list[object]
Entry = tuple[Skill | None, tuple[Diagnostic, ...]]


# Bump when parsing or walking rules change, so results of the old rules are not reused.
PARSE_RULES = 13


def _rules_stamp() -> str:
    return f"{__version__}/{PARSE_RULES}"


def _opt(value: object) -> str | None:
    return None if value is None else str(value)


def _skill_json(skill: Skill) -> dict[str, Any]:
    iface = skill.interface
    return {
        "name": skill.name,
        "description": skill.description,
        "short": skill.short_description,
        "iface": None
        if iface is None
        else [
            iface.display_name,
            iface.short_description,
            _opt(iface.icon_small),
            _opt(iface.icon_large),
            iface.brand_color,
            iface.default_prompt,
        ],
        "policy": [skill.policy.allow_implicit_invocation, list(skill.policy.products)],
        "deps": [[d.type, d.value, d.description, d.transport, d.command, d.url] for d in skill.dependencies],
        "claude": [
            list(skill.claude.allowed_tools),
            skill.claude.disable_model_invocation,
            skill.claude.user_invocable,
            skill.claude.argument_hint,
            skill.claude.model,
            skill.claude.context,
            list(skill.claude.paths),
            skill.claude.when_to_use,
        ],
        "fm": dict(skill.frontmatter),
    }


_DEFAULT_POLICY = SkillPolicy()
_DEFAULT_CLAUDE = ClaudeFields()
_DEFAULT_CLAUDE_ROW = [[], False, True, None, None, None, [], None]


def _policy(row: list[Any]) -> SkillPolicy:
    if row[0] is True and not row[1]:
        return _DEFAULT_POLICY  # shared: building frozen dataclasses is the slow part of a warm run
    return SkillPolicy(allow_implicit_invocation=row[0], products=tuple(row[1]))


def _claude(c: list[Any]) -> ClaudeFields:
    if c == _DEFAULT_CLAUDE_ROW:
        return _DEFAULT_CLAUDE
    return ClaudeFields(
        allowed_tools=tuple(c[0]),
        disable_model_invocation=c[1],
        user_invocable=c[2],
        argument_hint=c[3],
        model=c[4],
        context=c[5],
        paths=tuple(c[6]),
        when_to_use=c[7],
    )


def _parsed_path_factory() -> Any:
    """Python < 3.12 parses every ``Path(str)`` eagerly, which is a third of a warm run here.

    The paths in the cache are ones the walk built by joining plain names onto a canonical
    root, so their parts are simply ``text.split("/")``. On those versions build the path from
    its parts (checked against ``Path`` once, at import); elsewhere use ``Path``.
    """
    factory = getattr(PosixPath, "_from_parsed_parts", None)
    if sys.version_info >= (3, 12) or os.name != "posix" or factory is None:
        return None
    try:
        probe = factory("", "/", ["/", "tmp", "a b", "SKILL.md"])
        ok = (
            probe == Path("/tmp/a b/SKILL.md")
            and str(probe) == "/tmp/a b/SKILL.md"
            and probe.parent.name == "a b"
        )
    except Exception:  # an unexpected pathlib: use the public constructor
        return None
    return factory if ok else None


_FROM_PARTS = _parsed_path_factory()


_ODD_PARTS = frozenset({"", ".", ".."})


def skill_path(text: str) -> Path:
    """``Path(text)`` for an absolute path the walk built (fast where Python parses eagerly)."""
    if _FROM_PARTS is not None and text.startswith("/"):
        parts = text[1:].split("/")
        # Hidden folders (``/.agents/``) are plain names; only empty, ``.`` and ``..`` need Path.
        if _ODD_PARTS.isdisjoint(parts):
            path: Path = _FROM_PARTS("", "/", ["/", *parts])
            path._str = text  # type: ignore[attr-defined]  # what str(path) would build: sorting asks for it
            return path
    return Path(text)


def _path(value: Any) -> Path | None:
    return None if value is None else Path(value)


_SKILL_FIELDS = (
    "name",
    "description",
    "path",
    "root",
    "scope",
    "origin",
    "short_description",
    "interface",
    "policy",
    "dependencies",
    "claude",
    "frontmatter",
    "trusted",
    "real_path",
)


_SKILL_SETTERS = slot_setters(Skill, _SKILL_FIELDS)


def _new_skill(
    name: str,
    description: str,
    path: Path,
    root: SkillRoot,
    short: str | None,
    interface: SkillInterface | None,
    policy: SkillPolicy,
    dependencies: tuple[ToolDependency, ...],
    claude: ClaudeFields,
    frontmatter: MappingProxyType[str, Any],
) -> Skill:
    """The skill a cache row describes, found under ``root``, built without the frozen ``__init__``.

    The values come from the cache, already typed; a warm run builds thousands of skills, and
    setting the slots directly (one call each, no loop) takes a third of the generated
    ``__init__``'s time.
    """
    if _SKILL_SETTERS is None:
        values: tuple[Any, ...] = (name, description, path, root.path, root.scope, root.origin, short)
        values += (interface, policy, dependencies, claude, frontmatter, root.trusted, None)
        return Skill(**dict(zip(_SKILL_FIELDS, values, strict=True)))
    skill = object.__new__(Skill)
    set_name, set_desc, set_path, set_root, set_scope, set_origin, set_short = _SKILL_SETTERS[:7]
    set_iface, set_policy, set_deps, set_claude, set_fm, set_trusted, set_real = _SKILL_SETTERS[7:]
    set_name(skill, name)
    set_desc(skill, description)
    set_path(skill, path)
    set_root(skill, root.path)
    set_scope(skill, root.scope)
    set_origin(skill, root.origin)
    set_short(skill, short)
    set_iface(skill, interface)
    set_policy(skill, policy)
    set_deps(skill, dependencies)
    set_claude(skill, claude)
    set_fm(skill, frontmatter)
    set_trusted(skill, root.trusted)
    set_real(skill, None)
    return skill


def _dependencies(rows: list[list[Any]]) -> tuple[ToolDependency, ...]:
    return tuple(
        ToolDependency(type=d[0], value=d[1], description=d[2], transport=d[3], command=d[4], url=d[5])
        for d in rows
    )


def _skill_from(data: dict[str, Any], path: Path, root: SkillRoot) -> Skill:
    iface = data["iface"]
    return _new_skill(
        data["name"],
        data["description"],
        path,
        root,
        data["short"],
        None
        if iface is None
        else SkillInterface(
            display_name=iface[0],
            short_description=iface[1],
            icon_small=_path(iface[2]),
            icon_large=_path(iface[3]),
            brand_color=iface[4],
            default_prompt=iface[5],
        ),
        _policy(data["policy"]),
        _dependencies(data["deps"]) if data["deps"] else (),
        _claude(data["claude"]),
        MappingProxyType(data["fm"]),
    )


def _diag_json(d: Diagnostic) -> list[object]:
    return [d.code, d.severity.value, d.message, d.fix, _opt(d.path), d.line, d.field]


def _diag_from(row: list[Any]) -> Diagnostic:
    return Diagnostic(
        code=row[0],
        severity=Severity(row[1]),
        message=row[2],
        fix=row[3],
        path=_path(row[4]),
        line=row[5],
        field=row[6],
    )


class SkillCache:
    """Parsed skills by path; load once, :meth:`get`/:meth:`put` many, :meth:`save` once.

    The file's content comes from :mod:`~skillshelf.skills.cache_file` (kept in memory while the
    file is unchanged); it is shared, so the first :meth:`put` works on a copy of it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._content: CacheContent | None = None  # shared with other caches of this file
        self._entries: dict[str, list[Any]] = {}
        self._walks: dict[str, Any] = {}
        self._own_entries = True  # False while ``_entries`` is the shared content's
        self._own_walks = True
        self._used: set[str] = set()
        self._dirty = False
        self._root: tuple[SkillRoot, object] | None = None  # the last root and its key
        self._load()

    def _load(self) -> None:
        try:
            content = read_content(self.path, CACHE_VERSION, _rules_stamp())
        except (OSError, ValueError):
            self._dirty = True  # rewrite the broken file on save
            return
        if content is not None:
            self._content = content
            self._entries, self._walks = content.entries, content.walks
            self._own_entries = self._own_walks = False

    def _root_key(self, root: SkillRoot) -> object:
        """What of ``root`` a cached skill is built from (worked out once per root)."""
        if self._root is None or self._root[0] is not root:
            self._root = (root, (str(root.path), root.scope, root.origin, root.trusted))
        return self._root[1]

    def get(self, key: str, signature: Signature, root: SkillRoot) -> Entry | None:
        """The cached result for ``key`` if its signature still matches, else ``None`` (the
        same objects as the last time this row was read for this root)."""
        row = self._entries.get(key)
        if not isinstance(row, list) or len(row) != 3 or row[0] != signature:
            return None
        decoded = self._content.decoded if self._content is not None else None
        root_key = self._root_key(root)
        known = decoded.get(key) if decoded is not None else None
        if known is not None and known[0] is row and known[1] == root_key:
            self._used.add(key)
            entry: Entry = known[2]
            return entry
        try:
            skill = None if row[1] is None else _skill_from(row[1], skill_path(key), root)
            diags = tuple(_diag_from(d) for d in row[2]) if row[2] else ()
        except (KeyError, IndexError, TypeError, ValueError):
            return None
        if decoded is not None:
            decoded[key] = (row, root_key, (skill, diags))
        self._used.add(key)
        return skill, diags

    def put(
        self, key: str, signature: Signature, skill: Skill | None, diagnostics: tuple[Diagnostic, ...]
    ) -> None:
        """Remember a fresh parse result."""
        if not self._own_entries:
            self._entries, self._own_entries = dict(self._entries), True
        self._entries[key] = [
            signature,
            None if skill is None else _skill_json(skill),
            [_diag_json(d) for d in diagnostics],
        ]
        self._used.add(key)
        self._dirty = True

    def get_walk(self, key: str) -> Any:
        """The stored walk snapshot for ``key`` (see :mod:`~skillshelf.skills.walk_cache`)."""
        return self._walks.get(key)

    def put_walk(self, key: str, snapshot: Any) -> None:
        """Store (or, with ``None``, forget) a walk snapshot."""
        if snapshot is None and key not in self._walks:
            return
        if not self._own_walks:
            self._walks, self._own_walks = dict(self._walks), True
        if snapshot is None:
            del self._walks[key]
        else:
            self._walks[key] = snapshot
        self._dirty = True

    def save(self) -> None:
        """Write the cache if it changed; failures to write are ignored (it is only a cache)."""
        if not self._dirty:
            return
        entries = self._entries
        if len(entries) > MAX_ENTRIES:
            entries = {k: v for k, v in entries.items() if k in self._used}
        walks = self._walks if len(self._walks) <= MAX_WALKS else {}
        rules = _rules_stamp()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            blob = marshal.dumps(
                {"version": CACHE_VERSION, "rules": rules, "entries": entries, "walks": walks}
            )
            write_atomic(self.path, blob, prefix=".parsed-skills-")
        except (OSError, TypeError, ValueError):
            return
        self._dirty = False
        self._own_entries = self._own_walks = False  # now shared: a later put copies them again
        keep_content(self.path, rules, CacheContent(entries=entries, walks=walks))

"""``claudeMdExcludes``: the CLAUDE.md files a user's Claude Code settings leave out.

Read as Claude Code 2.1.197 reads it (checked with ``claude-oracle``): a list of glob patterns or
absolute paths, joined across the settings layers (user, the cwd's project and local files,
managed policy), matched against a file's absolute path with ``/`` separators, ``**`` spanning
folders, ``{a,b}`` alternatives and ``*`` matching names that start with a dot. It applies to the
user's, the project's and the local files, their rules and their imports; files of the managed
policy are never left out. An absolute pattern whose folder is reached through a symbolic link
also matches under the folder the link points to.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ClaudeMdExcludes"]

_GLOB_CHAR = re.compile(r"[*?{\[]")


@dataclass(frozen=True, slots=True)
class ClaudeMdExcludes:
    """The patterns of ``claudeMdExcludes`` (with their link-resolved variants), compiled, and
    the patterns that could not be (too many ``{a,b}`` alternatives: left out, named in
    ``problems``)."""

    patterns: tuple[str, ...] = ()
    matchers: tuple[Any, ...] = ()
    problems: tuple[str, ...] = ()

    @classmethod
    def from_layers(cls, layers: Iterable[Mapping[str, Any]]) -> ClaudeMdExcludes:
        """The patterns of every settings layer; a layer's value that is not a list of strings
        is ignored whole, as Claude Code ignores it."""
        given: list[str] = []
        for settings in layers:
            value = settings.get("claudeMdExcludes")
            if isinstance(value, list) and all(isinstance(p, str) for p in value):
                given += [p.replace("\\", "/") for p in value if p and "\x00" not in p]
        if not given:
            return cls()
        patterns = tuple(dict.fromkeys([*given, *(v for p in given if (v := _resolved_variant(p)))]))
        matchers, problems = [], []
        for pattern in patterns:
            try:
                matchers.append(_compiled(pattern))
            except Exception as exc:  # wcmatch's limit errors derive from Exception alone
                problems.append(f"{pattern[:200]!r}: {str(exc)[:200]}")
        return cls(patterns, tuple(matchers), tuple(problems))

    def excludes(self, path: Path) -> bool:
        """Whether ``path`` (absolute, as found) matches a pattern, once its ``.`` and ``..``
        parts are folded in as Node's ``path.resolve`` folds them (``/a/../b`` is ``/b``)."""
        text = _node_normal(str(path).replace("\\", "/"))
        return any(matcher.match(text) for matcher in self.matchers)


def _node_normal(text: str) -> str:
    """``text`` folded lexically; POSIX keeps two leading slashes where Node keeps one."""
    normal = posixpath.normpath(text)
    return "/" + normal.lstrip("/") if normal.startswith("//") else normal


def _compiled(pattern: str) -> Any:
    from wcmatch import glob

    return glob.compile([pattern], flags=glob.GLOBSTAR | glob.BRACE | glob.DOTGLOB | glob.FORCEUNIX)


def _resolved_variant(pattern: str) -> str | None:
    """``pattern`` with its fixed folder part through symbolic links, when that differs."""
    if not pattern.startswith("/"):
        return None
    glob_at = _GLOB_CHAR.search(pattern)
    fixed = pattern if glob_at is None else pattern[: glob_at.start()]
    folder = os.path.dirname(fixed)
    try:
        real = os.path.realpath(folder)
    except (OSError, ValueError):
        return None
    return real + pattern[len(folder) :] if real != folder else None

"""The ``.claude/commands`` files (and plugins' commands) Claude Code lists beside its skills.

Claude Code 2.1.197 reads every ``*.md`` file under the managed policy's ``.claude/commands``,
``~/.claude/commands`` and each ``.claude/commands`` from the cwd up to the repository root (not
the home folder's own; :func:`~skillshelf.skills.claude_settings.claude_project_folders`), and
lists each as a skill, after the skills and before its own. Read from the pinned CLI's code and
checked against it with ``claude-oracle`` (``tests/skills/test_claude_listing_oracle.py``):

- A file's name is its path below its ``commands`` folder, ``:`` between the parts and
  ``.md`` left off (``frontend/component.md`` is ``frontend:component``). A folder holding a
  ``SKILL.md`` is one command named by the folder; its other files are not read.
- Its text is the frontmatter ``description`` (and ``when_to_use``), or else the body's first
  line that is not blank, read as a skill's (one rule in both:
  :func:`~skillshelf.skills.parse_identity.claude_first_line`), or else ``Custom command``.
  The frontmatter is split, repaired and read as a skill's
  (:mod:`~skillshelf.skills.claude_reading`): YAML 1.2 values shown as JavaScript prints them
  (``1.50`` is ``1.5``, ``yes`` stays ``yes``; a list, a mapping or a null gives the first
  line), JavaScript's ``trim`` alone, ``when-to-use`` not read. One whose
  ``disable-model-invocation`` is ``true`` (or the text ``"true"``; ``yes`` is not) is not listed.
- Files over 1 MiB are left out. Every command is sorted by name the way Claude Code's
  ``localeCompare`` sorts (:func:`listing_key`), user and project ones together.

A plugin's commands (:func:`plugin_commands`) are read the same way, named ``PLUGIN:NAME``,
and listed only with a frontmatter ``description`` or ``when_to_use``.

The walk follows links, as Claude Code's does, once per folder, and stops at
:data:`MAX_COMMAND_FILES` files or :data:`MAX_DEPTH` folders down.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from skillshelf.env import Env
from skillshelf.fileio import read_regular_text
from skillshelf.gitrepo import git_root, main_checkout
from skillshelf.skills.claude_reading import (
    Ignored,
    claude_hides,
    claude_split,
    claude_when_to_use,
    load_claude,
)
from skillshelf.skills.claude_settings import claude_project_folders, claude_user_dir
from skillshelf.skills.parse_identity import claude_first_line, claude_reading, declared_values, js_trim
from skillshelf.skills.plugins import ClaudePlugin

__all__ = [
    "MAX_COMMAND_FILES",
    "ClaudeCommand",
    "claude_commands",
    "command_from_text",
    "command_name",
    "listing_key",
    "plugin_commands",
]

MAX_COMMAND_BYTES = 1024 * 1024
MAX_COMMAND_FILES = 2000
MAX_DEPTH = 16
NO_DESCRIPTION = "Custom command"

# CLDR root collation: spaces, then punctuation and symbols in this order, then digits, then letters
_SYMBOL_ORDER = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
_SYMBOL_RANK = {char: rank for rank, char in enumerate(_SYMBOL_ORDER)}


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaudeCommand:
    """One command as Claude Code lists it; ``hidden``: set ``disable-model-invocation``;
    ``described``: its frontmatter sets ``description`` (a plugin's command is listed only then,
    or with ``when_to_use``)."""

    name: str
    description: str
    when_to_use: str | None = None
    hidden: bool = False
    described: bool = False
    path: Path | None = None


def listing_key(name: str) -> tuple[tuple[tuple[int, int | str], ...], tuple[int, ...]]:
    """A sort key that orders names as ICU's root collation does (Claude Code sorts with
    ``localeCompare``): symbols before digits before letters, letters case-blind first, and at a
    tie lower case before upper case (``A``, ``a_b``, ``a1``, ``ab``, ``aB``, ``Ab``)."""
    primary: list[tuple[int, int | str]] = []
    for char in name:
        if char in _SYMBOL_RANK:
            primary.append((0, _SYMBOL_RANK[char]))
        elif char.isdigit():
            primary.append((1, int(char) if char.isascii() else ord(char)))
        else:
            primary.append((2, char.casefold()))
    return tuple(primary), tuple(int(char.isupper()) for char in name)


def command_name(path: Path, base: Path) -> str:
    """A command file's name: its path below ``base`` joined with ``:``, without ``.md``; a
    ``SKILL.md`` is named by its folder."""
    if path.name.lower() == "skill.md":
        path = path.parent
        parts = path.relative_to(base).parts if path != base else (base.name,)
        return ":".join(parts)
    return ":".join((*path.parent.relative_to(base).parts, path.name.removesuffix(".md")))


def command_from_text(name: str, text: str, path: Path | None = None) -> ClaudeCommand:
    """A command from its file's text (pure): frontmatter fields, else the body's first line;
    the frontmatter split, repaired and read as a skill's (one rule in both)."""
    where = path or Path(name)
    split = claude_split(text)
    body, node = text, None
    if split is not None:
        body = split.body
        loaded = load_claude(split, where, [])
        if not isinstance(loaded, Ignored) and isinstance(loaded[0].value, dict):
            node = loaded[0].node
    descriptions = declared_values(node, {}, "description")
    described = js_trim(claude_reading(descriptions[-1])[1] or "") if descriptions else ""
    when, _ = claude_when_to_use(declared_values(node, {}, "when_to_use"), path=where)
    hidden, _ = claude_hides(declared_values(node, {}, "disable-model-invocation"), path=where)
    return ClaudeCommand(
        name=name,
        description=described or claude_first_line(body) or NO_DESCRIPTION,
        when_to_use=when,
        hidden=hidden,
        described=bool(described),
        path=path,
    )


def command_folders(env: Env) -> list[Path]:
    """The ``commands`` folders Claude Code reads: the managed policy's, the user's, then each
    :func:`~skillshelf.skills.claude_settings.claude_project_folders` one's; in a linked
    worktree without a ``.claude/commands`` of its own, the main checkout's after them."""
    project = [folder / ".claude" / "commands" for folder in claude_project_folders(env)]
    root = git_root(Path(os.path.abspath(env.cwd)))
    main = main_checkout(root) if root is not None else None
    if (
        root is not None
        and main is not None
        and main != root
        and not (root / ".claude" / "commands").is_dir()
    ):
        project.append(main / ".claude" / "commands")
    return [env.claude_managed_dir / ".claude" / "commands", claude_user_dir(env) / "commands", *project]


def claude_commands(env: Env) -> list[ClaudeCommand]:
    """Every command Claude Code lists from ``env.cwd`` (those it hides too), in listing order."""
    return sorted(_read_commands(command_folders(env)), key=lambda c: listing_key(c.name))


def plugin_commands(plugins: Sequence[ClaudePlugin]) -> list[ClaudeCommand]:
    """The commands of Claude Code plugins, named ``PLUGIN:NAME``, in plugin order; only those
    with a ``description`` or ``when_to_use`` (others are not listed). Claude Code lists a
    plugin's commands in the order its folders happen to list them; here they go by name."""
    found: list[ClaudeCommand] = []
    for plugin in plugins:
        own = [
            dataclasses.replace(command, name=f"{plugin.name}:{command.name}")
            for command in _read_commands(plugin.command_folders)
            if command.described or command.when_to_use
        ]
        found += sorted(own, key=lambda c: listing_key(c.name))
    return found


def _read_commands(folders: Sequence[Path]) -> list[ClaudeCommand]:
    files = ((base, path) for base in folders for path in _command_files(base))
    return [
        command_from_text(command_name(path, base), text, path)
        for base, path in itertools.islice(files, MAX_COMMAND_FILES)
        if (text := _read(path)) is not None
    ]


def _command_files(base: Path) -> Iterator[Path]:
    """The command files below ``base``: in a folder with a ``SKILL.md``, that file alone."""
    if not base.is_dir():
        return
    for folder, files in _walk(base, set(), 0):
        markdown = sorted(name for name in files if name.endswith(".md"))
        skill = [name for name in markdown if name.lower() == "skill.md"]
        for name in skill[:1] or markdown:
            yield folder / name


def _walk(folder: Path, seen: set[tuple[int, int]], depth: int) -> Iterator[tuple[Path, list[str]]]:
    """``(folder, its file names)`` for ``folder`` and each folder below it, links followed,
    each real folder once."""
    try:
        stat = folder.stat()
        if (stat.st_dev, stat.st_ino) in seen or depth > MAX_DEPTH:
            return
        seen.add((stat.st_dev, stat.st_ino))
        entries = list(os.scandir(folder))
    except OSError:
        return
    subfolders: list[str] = []
    files: list[str] = []
    for entry in entries:
        try:
            (subfolders if entry.is_dir() else files if entry.is_file() else []).append(entry.name)
        except OSError:
            continue
    yield folder, files
    for name in sorted(subfolders):
        yield from _walk(folder / name, seen, depth + 1)


def _read(path: Path) -> str | None:
    try:  # a FIFO or device is not read (no hang), nor a file over the limit
        return read_regular_text(path, limit=MAX_COMMAND_BYTES, errors="replace")
    except OSError:
        return None

"""Explicit skill mentions: Codex's ``$name`` / ``[$name](path)`` and Claude Code's ``/name``.

:func:`extract_mentions` reads one text the way Codex's mention scanner does (byte-wise):

- ``$`` followed by one or more name characters (``a-z A-Z 0-9 _ - :``); the name ends at the
  first other character, so ``$alpha.skill`` names ``alpha`` and ``$slack:search`` keeps its
  plugin namespace.
- ``[$name](path)``: the path runs up to the first ``)``, is trimmed and must not be empty;
  blanks may sit between ``]`` and ``(``. Anything else falls back to a plain ``$name``.
- Common environment variable names (``$PATH``, ``$HOME``...) are never mentions; a link with
  such a name records neither its name nor its path.
- Links to ``app://``, ``mcp://`` and ``plugin://`` resources are not skill paths and their
  names are not recorded either; a ``skill://`` prefix is stripped.

On top of Codex's grammar, a text that *starts* with ``/name`` (optionally followed by
arguments) is a Claude Code style slash command.

:func:`select_mentioned` then picks skills in Codex's order: for each text, skills whose path a
link names (in skill-list order), then skills named by a plain ``$name`` (in skill-list order)
when exactly one skill has that name, then the slash command's skill.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from skillshelf.skills.model import Skill

__all__ = ["Mentions", "SlashCommand", "extract_mentions", "is_env_var_name", "select_mentioned"]

ENV_VAR_NAMES = frozenset(
    {"PATH", "HOME", "USER", "SHELL", "PWD", "TMPDIR", "TEMP", "TMP", "LANG", "TERM", "XDG_CONFIG_HOME"}
)
NON_SKILL_SCHEMES = ("app://", "mcp://", "plugin://")
SKILL_SCHEME = "skill://"
_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-:")
_ASCII_BLANKS = frozenset(b" \t\n\r\x0c")


@dataclass(frozen=True, slots=True, kw_only=True)
class SlashCommand:
    """A leading ``/name args`` as a Claude Code user types it."""

    name: str
    arguments: str = ""

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "arguments": self.arguments}


@dataclass(frozen=True, slots=True, kw_only=True)
class Mentions:
    """What one text mentions, each list in order of first appearance without repeats.

    ``names`` holds every mentioned name (plain and linked); ``plain_names`` only the ``$name``
    ones, the only ones that select by name; ``paths`` the skill paths of links.
    """

    names: tuple[str, ...] = ()
    plain_names: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    slash_command: SlashCommand | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "names": list(self.names),
            "plain_names": list(self.plain_names),
            "paths": list(self.paths),
            "slash_command": self.slash_command.to_dict() if self.slash_command else None,
        }


def is_env_var_name(name: str) -> bool:
    """Codex's list of common environment variable names, compared case-insensitively (ASCII)."""
    return name.upper() in ENV_VAR_NAMES


def _name_end(data: bytes, start: int) -> int:
    end = start
    while end < len(data) and data[end] in _NAME_BYTES:
        end += 1
    return end


def _parse_link(data: bytes, start: int) -> tuple[str, str, int] | None:
    """``[$name](path)`` starting at ``data[start] == '['`` -> (name, path, index after ``)``)."""
    if data[start + 1 : start + 2] != b"$":
        return None
    name_start = start + 2
    name_end = _name_end(data, name_start)
    if name_end == name_start or data[name_end : name_end + 1] != b"]":
        return None
    open_paren = name_end + 1
    while open_paren < len(data) and data[open_paren] in _ASCII_BLANKS:
        open_paren += 1
    if data[open_paren : open_paren + 1] != b"(":
        return None
    close = data.find(b")", open_paren + 1)
    if close < 0:
        return None
    path = data[open_paren + 1 : close].decode("utf-8", errors="replace").strip()
    if not path:
        return None
    return data[name_start:name_end].decode("ascii"), path, close + 1


def _skill_path(path: str) -> str | None:
    """The skill path a link names, or None for app/mcp/plugin resources."""
    if path.startswith(NON_SKILL_SCHEMES):
        return None
    return path[len(SKILL_SCHEME) :] if path.startswith(SKILL_SCHEME) else path


def _slash_command(text: str) -> SlashCommand | None:
    stripped = text.lstrip()
    if not stripped.startswith("/"):
        return None
    data = stripped.encode("utf-8")
    end = _name_end(data, 1)
    if end == 1 or (end < len(data) and not chr(data[end]).isspace()):
        return None  # "/usr/bin/x", "/ x", "/name!" are not commands
    return SlashCommand(name=data[1:end].decode("ascii"), arguments=stripped[end:].strip())


def _add(seen: list[str], value: str) -> None:
    if value not in seen:
        seen.append(value)


def extract_mentions(text: str) -> Mentions:
    """The skills ``text`` names, by Codex's rules plus a leading ``/name``."""
    data = text.encode("utf-8")
    names: list[str] = []
    plain: list[str] = []
    paths: list[str] = []
    index = 0
    while index < len(data):
        byte = data[index]
        if byte == ord("["):
            link = _parse_link(data, index)
            if link is not None:
                name, path, index = link
                skill_path = _skill_path(path)
                if not is_env_var_name(name) and skill_path is not None:
                    _add(names, name)
                    _add(paths, skill_path)
                continue
        if byte != ord("$"):
            index += 1
            continue
        end = _name_end(data, index + 1)
        if end == index + 1:
            index += 1
            continue
        name = data[index + 1 : end].decode("ascii")
        if not is_env_var_name(name):
            _add(names, name)
            _add(plain, name)
        index = end
    return Mentions(
        names=tuple(names), plain_names=tuple(plain), paths=tuple(paths), slash_command=_slash_command(text)
    )


def _path_keys(skill: Skill) -> frozenset[str]:
    """The strings a link may use for ``skill``: its SKILL.md path or its folder."""
    return frozenset({str(skill.path), os.path.normpath(str(skill.path)), str(skill.folder)})


def _normalise_link(path: str, cwd: Path | None) -> str:
    if cwd is not None and not os.path.isabs(path):
        path = os.path.join(cwd, path)
    return os.path.normpath(path)


def select_mentioned(
    skills: Sequence[Skill], texts: Sequence[str], *, cwd: Path | None = None
) -> tuple[Skill, ...]:
    """The skills the texts select, in Codex's order.

    ``skills`` are the enabled skills in load order. Per text: links select by path (the
    ``SKILL.md`` or its folder; relative links are joined to ``cwd`` when given); a plain
    ``$name`` selects only when exactly one skill has that exact name (two skills with one name
    select neither) and no skill of that name was chosen already; a leading ``/name`` selects
    the first user-invocable skill of that name. Each skill is selected once.
    """
    if not any("$" in text or text.lstrip().startswith("/") for text in texts):
        return ()  # no sigil, no mention: skip indexing every skill
    counts: dict[str, int] = {}
    for skill in skills:
        counts[skill.name] = counts.get(skill.name, 0) + 1
    selected: list[Skill] = []
    seen_paths: set[Path] = set()
    seen_names: set[str] = set()

    def take(skill: Skill) -> None:
        selected.append(skill)
        seen_paths.add(skill.path)
        seen_names.add(skill.name)

    for text in texts:
        mentions = extract_mentions(text)
        links = {_normalise_link(p, cwd) for p in mentions.paths}
        for skill in skills:
            if skill.path not in seen_paths and links & _path_keys(skill):
                take(skill)
        plain = set(mentions.plain_names)
        for skill in skills:
            if (
                skill.name in plain
                and counts[skill.name] == 1
                and skill.path not in seen_paths
                and skill.name not in seen_names
            ):
                take(skill)
        command = mentions.slash_command
        if command is not None and command.name not in seen_names:
            match = next((s for s in skills if s.name == command.name and s.claude.user_invocable), None)
            if match is not None and match.path not in seen_paths:
                take(match)
    return tuple(selected)

"""Explicit skill mentions: Codex's ``$name`` / ``[$name](path)`` and Claude Code's ``/name``.

:func:`extract_mentions` reads one text the way Codex's mention scanner does (byte-wise):

- ``$`` followed by one or more name characters (``a-z A-Z 0-9 _ - :``); the name ends at the
  first other character, so ``$alpha.skill`` names ``alpha`` and ``$slack:search`` keeps its
  plugin namespace.
- ``[$name](path)``: the path runs up to the first ``)``, is trimmed and must not be empty;
  blanks may sit between ``]`` and ``(``. Anything else falls back to a plain ``$name``.
- Common environment variable names (``$PATH``, ``$HOME``...) are never mentions; a link with
  such a name records neither its name nor its path (``variables`` keeps them, for a note).
- Links to ``app://``, ``mcp://`` and ``plugin://`` resources are not skill paths and their
  names are not recorded either; a ``skill://`` prefix is stripped.

On top of Codex's grammar, a text that *starts* with ``/name`` (optionally followed by
arguments) is a Claude Code style slash command.

:func:`select_mentioned` then picks skills in Codex's order: for each text, skills whose
``SKILL.md`` path a link names (``.``, ``..`` and ``//`` normalised; for a skill folder linked
into a root, its linked or its real path; Codex 0.171.0 selects nothing for a link to the
skill's folder nor for a relative link, measured with ``codex exec`` against ``model-standin``), then
skills named by a plain ``$name`` (in skill-list order) when exactly one skill has that name,
then the slash command's skill. Given the agent the context is for, the names are counted over
the skills that agent reads itself (Codex never reads ``.claude/skills``: with a skill ``lint``
there and another in ``.agents/skills``, Codex's ``$lint`` injects its own), and over the others
only for a name the agent has no skill of (:func:`named_choice`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.skills.model import Skill

__all__ = [
    "Agent",
    "Mentions",
    "SlashCommand",
    "extract_mentions",
    "is_env_var_name",
    "named_choice",
    "read_by",
    "select_mentioned",
    "unselected_mentions",
]

Agent = Literal["codex", "claude"]

ENV_VAR_NAMES = frozenset(
    {"PATH", "HOME", "USER", "SHELL", "PWD", "TMPDIR", "TEMP", "TMP", "LANG", "TERM", "XDG_CONFIG_HOME"}
)
NON_SKILL_SCHEMES = ("app://", "mcp://", "plugin://")
SKILL_SCHEME = "skill://"
#: A ``$word`` worth a note when no skill has its name: lower case words joined by ``-``, ``_``
#: or ``:`` (``$5``, ``$FOO_BAR`` and ``$x1y`` in shell text are not taken for skill names).
_SKILL_LIKE = re.compile(r"[a-z][a-z0-9]*(?:[-_:][a-z0-9]+)*")
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
    ones, the only ones that select by name; ``paths`` the skill paths of links; ``links`` each
    link's name and skill path; ``variables`` the names left out as environment variables.
    """

    names: tuple[str, ...] = ()
    plain_names: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    slash_command: SlashCommand | None = None
    links: tuple[tuple[str, str], ...] = ()
    variables: tuple[str, ...] = ()

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
    links: list[tuple[str, str]] = []
    variables: list[str] = []
    index = 0
    while index < len(data):
        byte = data[index]
        if byte == ord("["):
            link = _parse_link(data, index)
            if link is not None:
                name, path, index = link
                skill_path = _skill_path(path)
                if is_env_var_name(name):
                    _add(variables, name)
                elif skill_path is not None:
                    _add(names, name)
                    _add(paths, skill_path)
                    if (name, skill_path) not in links:
                        links.append((name, skill_path))
                continue
        if byte != ord("$"):
            index += 1
            continue
        end = _name_end(data, index + 1)
        if end == index + 1:
            index += 1
            continue
        name = data[index + 1 : end].decode("ascii")
        if is_env_var_name(name):
            _add(variables, name)
        else:
            _add(names, name)
            _add(plain, name)
        index = end
    return Mentions(
        names=tuple(names),
        plain_names=tuple(plain),
        paths=tuple(paths),
        slash_command=_slash_command(text),
        links=tuple(links),
        variables=tuple(variables),
    )


def _normalise_link(path: str, cwd: Path | None) -> str:
    """A link's path as compared with a skill's ``SKILL.md`` path: normalised (``.``, ``..``,
    ``//``, as Codex takes them), joined to ``cwd`` first when it is relative and a ``cwd`` is
    given (Codex selects nothing for a relative link)."""
    if cwd is not None and not os.path.isabs(path):
        path = os.path.join(cwd, path)
    return os.path.normpath(path)


def _path_keys(skill: Skill) -> frozenset[str]:
    """The strings a link selects ``skill`` by: its ``SKILL.md`` path, linked and real, as found
    and normalised (never its folder: Codex selects nothing for a link to the folder)."""
    return frozenset(f(p) for p in (skill.path, skill.order_path) for f in (str, os.path.normpath))


def read_by(skill: Skill, agent: Agent | None) -> bool:
    """Whether ``agent`` reads ``skill`` from one of its own roots (Codex's: ``.agents/skills``,
    ``.codex/skills``, ``$CODEX_HOME``...; Claude Code's: ``.claude/skills``...)."""
    if agent is None:
        return False
    return skill.origin.is_codex if agent == "codex" else skill.origin.is_claude


def named_choice(same_name: Sequence[Skill], agent: Agent | None = None) -> Skill | None:
    """The skill a plain ``$name`` selects among the skills of that name (in list order): the one
    of them ``agent`` reads itself, when it reads exactly one; none when it reads several (Codex
    selects nobody then); when it reads none of them (or no agent is given), the only skill of
    the name, else none."""
    own = [skill for skill in same_name if read_by(skill, agent)]
    pool = own or list(same_name)
    return pool[0] if len(pool) == 1 else None


def by_name(skills: Sequence[Skill]) -> dict[str, list[Skill]]:
    """``skills`` grouped by name, each group in list order."""
    groups: dict[str, list[Skill]] = {}
    for skill in skills:
        groups.setdefault(skill.name, []).append(skill)
    return groups


def select_mentioned(
    skills: Sequence[Skill], texts: Sequence[str], *, cwd: Path | None = None, agent: Agent | None = None
) -> tuple[Skill, ...]:
    """The skills the texts select, in Codex's order.

    ``skills`` are the enabled skills in load order. Per text: links select by the exact
    ``SKILL.md`` path (relative links are joined to ``cwd`` when given); a plain ``$name``
    selects the skill :func:`named_choice` picks for ``agent`` (two skills of a name the agent
    reads select neither), unless a skill of that name was chosen already; a leading ``/name``
    selects the first user-invocable skill of that name, one ``agent`` reads first. Each skill
    is selected once.
    """
    if not any("$" in text or text.lstrip().startswith("/") for text in texts):
        return ()  # no sigil, no mention: skip indexing every skill
    groups = by_name(skills)
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
            if skill.path not in seen_paths and not links.isdisjoint(_path_keys(skill)):
                take(skill)
        chosen = {
            id(pick)
            for name in mentions.plain_names
            if (pick := named_choice(groups.get(name, ()), agent)) is not None
        }
        for skill in skills:
            if id(skill) in chosen and skill.path not in seen_paths and skill.name not in seen_names:
                take(skill)
        command = mentions.slash_command
        if command is not None and command.name not in seen_names:
            match = _command_skill(groups.get(command.name, ()), agent)
            if match is not None and match.path not in seen_paths:
                take(match)
    return tuple(selected)


def _command_skill(same_name: Sequence[Skill], agent: Agent | None) -> Skill | None:
    """The skill a leading ``/name`` selects: the first user-invocable one ``agent`` reads, else
    the first user-invocable one."""
    invocable = [skill for skill in same_name if skill.claude.user_invocable]
    own = [skill for skill in invocable if read_by(skill, agent)]
    pool = own or invocable
    return pool[0] if pool else None


def unselected_mentions(
    skills: Sequence[Skill],
    text: str,
    selected: Collection[Skill],
    *,
    agent: Agent | None = None,
    cwd: Path | None = None,
    skip: Collection[str] = (),
) -> list[Diagnostic]:
    """A warning for each skill name or link of ``text`` that loads nothing (``selected`` being
    what :func:`select_mentioned` chose from ``skills`` for ``agent``): a skill-like name no skill
    has (``SK420``), a name several skills share (``SK421``), a skill's name that Codex takes for
    an environment variable (``SK422``), a link that names no skill's ``SKILL.md`` path
    (``SK423``: a skill's folder, a relative path). Names in ``skip`` are left to the caller."""
    mentions = extract_mentions(text)
    groups = by_name(skills)
    chosen_names = {skill.name for skill in selected}
    chosen_paths = frozenset().union(*(_path_keys(skill) for skill in selected))
    notes: list[Diagnostic] = []
    for name, path in mentions.links:
        if _normalise_link(path, None) not in chosen_paths and name not in skip:
            notes.append(_link_note(skills, name, path, cwd))
    for name in mentions.plain_names:
        if name in chosen_names or name in skip:
            continue
        group = groups.get(name, [])
        if group:
            notes.append(_ambiguous_note(name, [s for s in group if read_by(s, agent)] or group))
        elif _SKILL_LIKE.fullmatch(name.rstrip(":-")):
            note = _unknown_note(name, groups)
            if note is not None:
                notes.append(note)
    notes += [_variable_note(n, groups[n][0]) for n in mentions.variables if n in groups and n not in skip]
    return notes


def _note(code: str, message: str, fix: str, path: Path | None = None) -> Diagnostic:
    return diagnostic(code, Severity.WARNING, message, fix, path)


def _unknown_note(name: str, groups: dict[str, list[Skill]]) -> Diagnostic | None:
    """``SK420`` for a name no skill has that reads as meant for one: close to a skill's name
    (``$pdf:``: Codex reads the colon as part of it) or holding a ``-``, which variables cannot
    (``$files``, PHP's ``$user_name``, LaTeX's ``$x`` get no note)."""
    import difflib  # only for a name no skill has

    trimmed = name.rstrip(":-")
    close = [trimmed] if trimmed in groups else difflib.get_close_matches(name, list(groups), n=1)
    if not close and "-" not in trimmed:
        return None
    guess = f"did you mean ${close[0]}? " if close else ""
    return _note(
        "SK420",
        f"the task mentions ${name}, but no skill here is named {name!r}, so nothing is loaded for it",
        f"{guess}`skillshelf list` shows the skills here",
    )


def _ambiguous_note(name: str, pool: Sequence[Skill]) -> Diagnostic:
    where = ", ".join(str(skill.path) for skill in pool)
    return _note(
        "SK421",
        f"the task mentions ${name}, but {len(pool)} skills are named {name!r} ({where}), "
        "so it loads none of them",
        f"link the one you mean: [${name}]({pool[0].path})",
        pool[0].path,
    )


def _variable_note(name: str, skill: Skill) -> Diagnostic:
    return _note(
        "SK422",
        f"the task mentions ${name}, but Codex takes ${name} for the environment variable "
        f"${name.upper()} and loads no skill for it (nor for a link [${name}](...))",
        f"rename the skill {name!r}: Codex never loads a skill named {', '.join(sorted(ENV_VAR_NAMES))} "
        "(in any case) by a mention",
        skill.path,
    )


def _link_note(skills: Sequence[Skill], name: str, path: str, cwd: Path | None) -> Diagnostic:
    target = _normalise_link(path, cwd)
    keys = ((s, _path_keys(s) | {str(s.folder), str(s.order_path.parent)}) for s in skills)
    skill = next((s for s, near in keys if target in near), None)
    if skill is None:
        return _note(
            "SK423",
            f"the task links ${name} to {path}, where no skill's SKILL.md is, so nothing is loaded for it",
            "link a skill's SKILL.md: `skillshelf list` shows their paths",
        )
    return _note(
        "SK423",
        f"the task links ${name} to {path}, but a link loads a skill only when it names the "
        "absolute path of the skill's SKILL.md, so nothing is loaded for it",
        f"link [${name}]({skill.path})",
        skill.path,
    )

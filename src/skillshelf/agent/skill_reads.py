"""The agent's part in skills read and used outside the skill tools.

The catalog and the per-turn suggestions tell the model to read a skill's ``SKILL.md`` at the
path they give, as Codex's model does; that path is often outside the working folder (a
user-scope skill, a project skill seen from a subfolder). :class:`SkillFolders` lets
``read_file`` read there, read-only: a path inside the folder of a skill discovery found (its
``SKILL.md`` and the files it bundles) is read confined to that folder as ``read_skill_file``
reads it (:func:`~skillshelf.skills.bundled.read_bundled_file`: no ``..``, no hidden files, no
symlink out, no hard link; an untrusted skill's text defused and marked untrusted). Nothing
else outside the working folder is read.

:class:`SkillUses` tells which skill a bash command or a ``read_file`` read used (its
``SKILL.md`` read, or one of its scripts run) once a turn, as the usage log and the events
count it; a ``SKILL.md`` read whole is also kept to be put back after a compaction, as a
``load_skill`` is. :func:`agent_fix` fits a skill tool's error hint to the tools the agent
offers (no ``list_skills``, an MCP-only tool).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from skillshelf.errors import SkillshelfError
from skillshelf.fileio import resolve_path
from skillshelf.serve.schemas import ToolResult, error_result
from skillshelf.skills.bundled import discovered_folder, read_bundled_file
from skillshelf.skills.model import Skill

__all__ = ["SKILL_READ_NOTE", "SkillFolders", "SkillRead", "SkillUses", "agent_fix"]

#: What ``read_file``'s description adds where it reads in the skills' folders.
SKILL_READ_NOTE = (
    " It also reads (never writes) a skill's SKILL.md and the files it bundles at the path the "
    "skills list gives, also outside the workspace."
)
MCP_LISTING = "call `list_skills`"  # what a skill tool's hint names on every surface


def _is_root(folder: str) -> bool:
    """Whether ``folder`` is a file system's root (``/``), which holds every path."""
    return os.path.dirname(folder) == folder


@dataclass(frozen=True, slots=True)
class SkillRead:
    """A file read in a skill's folder: its text (or why not), and the file's path."""

    text: str
    path: Path
    skill: str


class SkillFolders:
    """The folders of the skills ``read_file`` may read in, beside the working folder."""

    def __init__(self, skills: Sequence[Skill]) -> None:
        self._folders: list[tuple[str, Skill]] = []
        for skill in skills:
            lexical = os.path.normpath(skill.folder)
            real = os.path.realpath(skill.folder)
            if _is_root(lexical) or _is_root(real):
                continue  # a skill "folder" that is / (or a drive) would open every file to read_file
            self._folders.append((lexical, skill))
            if real != lexical:
                self._folders.append((real, skill))
        self._folders.sort(key=lambda item: len(item[0]), reverse=True)  # the deepest folder first

    def find(self, root: Path, raw: str) -> tuple[Skill, str] | None:
        """The skill whose folder holds ``raw`` (absolute, or relative to ``root``), and the path
        inside that folder; ``None`` when it is in no skill's folder."""
        joined = os.path.join(root, raw)
        candidates = [os.path.normpath(joined)]
        try:
            candidates.append(str(resolve_path(Path(joined))))
        except (OSError, ValueError):
            pass
        for candidate in candidates:
            for folder, skill in self._folders:
                if candidate.startswith(folder + os.sep):  # folder: normalized, never a root
                    return skill, PurePosixPath(os.path.relpath(candidate, folder)).as_posix()
        return None

    def read(self, skill: Skill, relative: str, *, max_bytes: int) -> SkillRead:
        """The text of ``relative`` in ``skill``'s folder, read confined to it.

        Raises:
            SkillshelfError: the read is refused (a hidden file, a symlink out of the folder,
                a hard link, a binary file) or the file is missing; the hint names ``load_skill``.
        """
        try:
            file = read_bundled_file(skill, relative, max_bytes=max_bytes)
        except SkillshelfError as exc:
            hint = f"{exc.hint}; or call load_skill with name {skill.name!r}".lstrip("; ")
            raise SkillshelfError(exc.message, hint=hint, code=exc.code) from None
        if file.text is None:
            raise SkillshelfError(
                f"{relative!r} of the skill {skill.name!r} is a binary file",
                hint=f"call read_skill_file with name {skill.name!r} and path {relative!r}",
            )
        text = file.text
        if file.truncated:
            text += (
                f"\n... [the file is {file.size} bytes; cut at {max_bytes}: read on with "
                f"read_skill_file (name {skill.name!r}, path {relative!r}, offset {max_bytes})] ..."
            )
        if not skill.trusted:
            from skillshelf.skills.load import UNTRUSTED_NOTE

            text = f"{UNTRUSTED_NOTE}\n\n{text}"
        return SkillRead(text=text, path=discovered_folder(skill) / relative, skill=skill.name)


class SkillUses:
    """Which skill a command or a read used, each once a turn; a ``SKILL.md`` read goes to
    ``on_read(name, text)`` every time (the latest text is the one to put back)."""

    def __init__(self, skills: Sequence[Skill], *, on_read: Callable[[str, str], None]) -> None:
        from skillshelf.skills.implicit import ImplicitUseDetector

        self._detector = ImplicitUseDetector(skills)
        self._on_read = on_read

    def new_turn(self) -> None:
        """A new user message: every skill is reported again."""
        self._detector.new_turn()

    def after_command(self, command: str, *, cwd: Path) -> str | None:
        """The skill ``command`` used, not reported yet this turn; else ``None``."""
        skill = self._detector.detect(command, cwd=cwd)
        return None if skill is None else skill.name

    def after_read(self, path: Path, text: str, *, cwd: Path) -> str | None:
        """The skill whose ``SKILL.md`` ``path`` is (read as ``text``, kept to be put back after a
        compaction), when not reported yet this turn; else ``None``."""
        real = os.path.realpath(path)
        found = self._detector.matches(["cat", real], cwd=cwd)
        if not found:
            return None
        self._on_read(found[0].name, text)
        skill = self._detector.detect(["cat", real], cwd=cwd)
        return None if skill is None else skill.name


def agent_fix(result: ToolResult, offered: Collection[str]) -> ToolResult:
    """``result`` with a hint that names what the agent offers to see the skills (it has no
    ``list_skills``): ``search_skills`` when ``offered`` holds it, else the system prompt's catalog."""
    fix = str(result.data.get("fix", "")) if isinstance(result.data, dict) else ""
    if not result.is_error or MCP_LISTING not in fix:
        return result
    hint = (
        "call `search_skills` with a few words about the task to find a skill, or pick a name from "
        "the skills listed in the system prompt"
        if "search_skills" in offered
        else "pick a name from the skills listed in the system prompt"
    )
    code = str(result.data.get("code", "")) or "SK404"
    message = str(result.data.get("message", ""))
    fitted = error_result(SkillshelfError(message, hint=hint, code=code))
    return replace(fitted, data={**result.data, "fix": fitted.data.get("fix", "")})

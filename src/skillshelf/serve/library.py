"""The live skill library behind a server: the current :class:`SkillTools`, swapped on reload.

A server holds one :class:`SkillLibrary`. Requests read ``library.tools`` (an immutable
snapshot); the file watcher calls :meth:`SkillLibrary.reload`, which rediscovers the skills
and swaps the snapshot in one assignment, so a request never sees half a reload.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from skillshelf.errors import PathEscapeError
from skillshelf.serve.tools import SkillTools
from skillshelf.serve.watch import pending_parents, pending_roots, watched_folders
from skillshelf.skills.bundled import discovered_folder
from skillshelf.skills.model import Discovery, Skill

__all__ = ["LibraryChange", "Loader", "SkillLibrary"]

MAX_RESOURCE_FILES_PER_SKILL = 500


@dataclass(frozen=True, slots=True, kw_only=True)
class LibraryChange:
    """What a reload changed, so the server only notifies what clients must refetch."""

    prompts: bool
    resources: bool
    skills: bool

    @property
    def any(self) -> bool:
        return self.prompts or self.resources or self.skills


Loader = Callable[[], tuple[Discovery | None, SkillTools]]
"""Builds one snapshot: the discovery it came from (for the roots to watch) and the tools."""


def _prompt_signature(skills: Sequence[Skill]) -> tuple[tuple[str, str, str | None], ...]:
    return tuple((s.name, s.description, s.claude.argument_hint) for s in skills if s.claude.user_invocable)


class SkillLibrary:
    """The skills a server serves, reloadable through a loader."""

    def __init__(
        self, load: Loader | None = None, *, tools: SkillTools | None = None, watch_paths: Sequence[Path] = ()
    ) -> None:
        self._load = load
        self._lock = threading.Lock()
        self._extra_watch = tuple(watch_paths)
        self._files: dict[Path, tuple[str, ...]] = {}
        self._files_snapshot: tuple[tuple[Skill, str], ...] | None = None
        self.discovery: Discovery | None = None
        if load is not None:
            self.discovery, tools = load()
        self.tools: SkillTools = tools if tools is not None else SkillTools(())

    @classmethod
    def from_skills(cls, skills: Sequence[Skill]) -> SkillLibrary:
        """A fixed library (no rediscovery) over ``skills``."""
        return cls(tools=SkillTools(skills))

    @classmethod
    def from_discover(cls, discover: Callable[[], Discovery]) -> SkillLibrary:
        """A library that reloads by calling ``discover`` (every skill served, default catalog)."""

        def load() -> tuple[Discovery | None, SkillTools]:
            discovery = discover()
            return discovery, SkillTools(discovery.skills)

        return cls(load)

    @property
    def skills(self) -> tuple[Skill, ...]:
        return self.tools.skills

    def watch_paths(self) -> tuple[Path, ...]:
        """Existing folders whose trees to watch: the discovery roots plus any extra paths,
        resolved, each once, outermost first; a root inside another is kept (the outer one's walk
        may not reach it, as a hidden ``.system`` root inside ``$CODEX_HOME/skills``)."""
        return watched_folders(self.discovery, self._extra_watch)

    def pending_roots(self) -> tuple[Path, ...]:
        """Roots that were scanned but do not exist yet (``.agents/skills`` before the first skill)."""
        return pending_roots(self.discovery)

    def pending_parents(self) -> tuple[Path, ...]:
        """The nearest existing folder above each pending root, to watch (not recursively) for it."""
        return pending_parents(self.pending_roots())

    def files_of(self, skill: Skill) -> tuple[str, ...]:
        """The bundled files of ``skill`` (cached until the next reload), listed in the folder its
        reads stay in; none when that folder has been swapped for a symlink since discovery."""
        cached = self._files.get(skill.path)
        if cached is None:
            from skillshelf.skills.load import list_bundled_files

            try:
                folder = discovered_folder(skill)
            except PathEscapeError:
                cached = ()
            else:
                files, _more = list_bundled_files(folder, limit=MAX_RESOURCE_FILES_PER_SKILL)
                cached = ("SKILL.md", *files)
            self._files[skill.path] = cached
        return cached

    def all_files(self) -> tuple[tuple[Skill, str], ...]:
        """Every (skill, relative path) pair the resource list offers, in a stable order: the
        files of the skills the catalog lists (``list_skills``' skills). A model may browse that
        list (Codex and Claude Code give it tools to), so a skill the catalog leaves out
        (``manual``: loaded when mentioned) is not offered there; its files are still read by
        URI, as ``load_skill`` still loads it by name. None while the skills list is switched
        off (``list_skills`` lists none either)."""
        snapshot = self._files_snapshot
        if snapshot is None:
            tools = self.tools
            listed = set() if tools.withheld else {skill.path for skill in tools.listed}
            offered = [skill for skill in map(tools.get, tools.names()) if skill.path in listed]
            snapshot = tuple((skill, rel) for skill in offered for rel in self.files_of(skill))
            self._files_snapshot = snapshot
        return snapshot

    def reload(self) -> LibraryChange:
        """Rediscover the skills and swap the snapshot; say what changed."""
        if self._load is None:
            return LibraryChange(prompts=False, resources=False, skills=False)
        with self._lock:
            old = self.tools.skills
            discovery, new_tools = self._load()
            self.discovery = discovery
            self._files = {}
            self._files_snapshot = None
            self.tools = new_tools
        return LibraryChange(
            prompts=_prompt_signature(old) != _prompt_signature(new_tools.skills),
            resources=True,
            skills=old != new_tools.skills,
        )

"""The live skill library behind a server: the current :class:`SkillTools`, swapped on reload.

A server holds one :class:`SkillLibrary`. Requests read ``library.tools`` (an immutable
snapshot); the file watcher calls :meth:`SkillLibrary.reload`, which rediscovers the skills
and swaps the snapshot in one assignment, so a request never sees half a reload. The file
listings built for the resource list are kept in the snapshot they were built from, so one
built while a reload came in is never served after it.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skillshelf.errors import PathEscapeError
from skillshelf.serve.tools import SkillTools
from skillshelf.serve.watch import pending_parents, pending_roots, scanned_roots, watched_folders
from skillshelf.skills.bundled import discovered_folder
from skillshelf.skills.bundled_listing import BundledFiles, bundled_listing
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


@dataclass(slots=True)
class _Served:
    """One snapshot of the library: the tools and the file listings built from them. A reload
    replaces the whole of it, so a listing still being built from an older one is stored in
    that older one (and dropped with it), never beside newer tools."""

    tools: SkillTools
    files: dict[Path, BundledFiles] = field(default_factory=dict)  # SKILL.md first
    listing: tuple[tuple[Skill, str], ...] | None = None


class SkillLibrary:
    """The skills a server serves, reloadable through a loader."""

    def __init__(
        self, load: Loader | None = None, *, tools: SkillTools | None = None, watch_paths: Sequence[Path] = ()
    ) -> None:
        self._load = load
        self._lock = threading.Lock()
        self._extra_watch = tuple(watch_paths)
        self.discovery: Discovery | None = None
        self.scanned_ns = time.time_ns()
        """When the current snapshot's scan began (:func:`time.time_ns`): a change from then on may
        be missing from it, so the watch looks for one once it is in place."""
        if load is not None:
            self.discovery, tools = _with_skipped(*load())
        self._served = _Served(tools=tools if tools is not None else SkillTools(()))

    @property
    def tools(self) -> SkillTools:
        """The current snapshot's tools."""
        return self._served.tools

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

    def scanned_roots(self) -> tuple[Path, ...]:
        """Every root the last scan looked at, whether it was there or not."""
        return scanned_roots(self.discovery)

    def files_of(self, skill: Skill) -> tuple[str, ...]:
        """The bundled files of ``skill`` (cached until the next reload), listed in the folder its
        reads stay in; none when that folder has been swapped for a symlink since discovery."""
        return _files_of(self._served, skill).files

    def unlisted_of(self, skill: Skill) -> tuple[int, bool]:
        """How many of ``skill``'s files its resource list leaves out (past
        :data:`MAX_RESOURCE_FILES_PER_SKILL`), and whether that is a lower bound; read from the
        listing :meth:`files_of` or :meth:`all_files` made (``(0, False)`` before it)."""
        listed = self._served.files.get(skill.path)
        return (0, False) if listed is None else (listed.more, listed.more_at_least)

    def all_files(self) -> tuple[tuple[Skill, str], ...]:
        """Every (skill, relative path) pair the resource list offers, in a stable order: the
        files of the skills the catalog lists (``list_skills``' skills). A model may browse that
        list (Codex and Claude Code give it tools to), so a skill the catalog leaves out
        (``manual``: loaded when mentioned) is not offered there; its files are still read by
        URI, as ``load_skill`` still loads it by name. None while the skills list is switched
        off (``list_skills`` lists none either). Built from one snapshot and kept in it, so a
        reload meanwhile leaves the next call to build the list anew."""
        served = self._served
        if served.listing is None:
            tools = served.tools
            listed = set() if tools.withheld else {skill.path for skill in tools.listed}
            offered = [skill for skill in map(tools.get, tools.names()) if skill.path in listed]
            pairs = ((skill, rel) for skill in offered for rel in _files_of(served, skill).files)
            served.listing = tuple(pairs)
        return served.listing

    def reload(self) -> LibraryChange:
        """Rediscover the skills and swap the snapshot; say what changed."""
        if self._load is None:
            return LibraryChange(prompts=False, resources=False, skills=False)
        with self._lock:
            old = self.tools.skills
            scanned_ns = time.time_ns()
            discovery, new_tools = _with_skipped(*self._load())
            self.discovery, self.scanned_ns = discovery, scanned_ns
            self._served = _Served(tools=new_tools)  # tools and empty listings in one assignment
        return LibraryChange(
            prompts=_prompt_signature(old) != _prompt_signature(new_tools.skills),
            resources=True,
            skills=old != new_tools.skills,
        )


def _with_skipped(discovery: Discovery | None, tools: SkillTools) -> tuple[Discovery | None, SkillTools]:
    """The loader's snapshot, its tools told which skills ``discovery`` skipped and why, so a
    name of one is explained (``SK407``) rather than unknown; before the tools are served."""
    if discovery is not None and not tools.skipped:
        tools.skipped = discovery.diagnostics
    return discovery, tools


def _files_of(served: _Served, skill: Skill) -> BundledFiles:
    """:meth:`SkillLibrary.files_of` in the snapshot ``served``, with the count of the files left
    out, cached there: the files a read with the tools' cap serves, as ``load_skill`` lists them."""
    cached = served.files.get(skill.path)
    if cached is None:
        try:
            folder = discovered_folder(skill)
        except PathEscapeError:
            cached = BundledFiles(files=(), more=0)
        else:
            limit, cap = MAX_RESOURCE_FILES_PER_SKILL, served.tools.max_file_bytes
            listed = bundled_listing(folder, limit=limit, max_file_bytes=cap)
            cached = dataclasses.replace(listed, files=("SKILL.md", *listed.files))
        served.files[skill.path] = cached
    return cached

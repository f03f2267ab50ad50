"""Discover skills: walk every root, parse each ``SKILL.md`` once, order them like Codex.

* The roots and their order are :mod:`~skillshelf.skills.roots`'s, with skillshelf's own
  ``project_root_markers`` (``DiscoveryOptions``, from its system or user config or ``-c``)
  when it sets them, else those of Codex's ``config.toml`` when it does (skillshelf's config
  wins, as for Codex's skills switches).

* Roots are canonicalised (symlinks resolved) and de-duplicated; each is walked with
  :func:`~skillshelf.skills.walk.walk_root` (Codex's rules) or, for Claude Code's roots,
  :func:`~skillshelf.skills.walk.walk_claude_root` (one level).
* A ``SKILL.md`` reached twice (through a symlink, or from two roots) is kept once: the first
  root wins. Its ``path`` is the path under the root as walked, as Codex shows it.
* Same names at different paths are all kept (with an info diagnostic).
* Skills inside a plugin folder are named ``<plugin>:<name>`` (see
  :mod:`~skillshelf.skills.namespace`); Claude Code's roots keep plain folder names.
* Skills whose ``agents/openai.yaml`` ``policy.products`` excludes ``codex`` are dropped, as
  Codex drops them.
* Final order: scope (repo, user, system, admin), then name, then the resolved path (as Codex).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType

from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.env import Env
from skillshelf.skills.cache import CACHE_FILE, SkillCache, skill_path
from skillshelf.skills.codex_config import codex_settings_layers, read_codex_settings
from skillshelf.skills.model import MAX_SKILL_BYTES, Discovery, RootOrigin, RootScan, Skill, SkillRoot
from skillshelf.skills.namespace import NamespaceResolver, qualified_name
from skillshelf.skills.roots import claude_roots, extra_roots, is_claude_root, skill_roots
from skillshelf.skills.same_names import (
    duplicate_names,
    look_alike_names,
    without_claude_copies,
    without_shadowed_builtins,
)
from skillshelf.skills.slots import replaced
from skillshelf.skills.walk import FoundFile, ScanLimits, WalkResult, found_file, walk_claude_root, walk_root
from skillshelf.skills.walk_cache import restore_walk, snapshot_walk
from skillshelf.skills.walk_limits import limit_diagnostics, limits_from_environ

__all__ = [
    "MAX_SKILL_BYTES",
    "DiscoveryOptions",
    "ScanLimits",
    "discover_claude",
    "discover_in",
    "discover_skills",
    "read_skill_body",
]

# MAX_SKILL_BYTES comes from the model, not from parse: parse (and YAML) is imported only when
# a file has to be parsed, so a run served from the cache never loads them.


@dataclass(frozen=True, slots=True, kw_only=True)
class DiscoveryOptions:
    """How to discover: extra roots, which families of roots, cache, limits.

    ``builtin_dir`` is the folder the built-in skills are read from (when ``include_builtin``);
    by default the copy in the user data folder if it is current, else the package's own
    (:func:`~skillshelf.skills.builtin.current_builtin_dir`): discovery never writes them.
    """

    extra_roots: tuple[Path, ...] = ()
    include_builtin: bool = True
    builtin_dir: Path | None = None
    include_claude: bool = True
    include_installed: bool = True
    use_cache: bool = True
    limits: ScanLimits = field(default_factory=ScanLimits)
    max_skill_bytes: int = MAX_SKILL_BYTES
    bundled: bool | None = None  # Codex's system skills (``.system``); None: as Codex's config says
    project_root_markers: tuple[str, ...] | None = None  # skillshelf's own; None: as Codex's config says


def discover_skills(env: Env, options: DiscoveryOptions = DiscoveryOptions()) -> Discovery:
    """Find every skill visible from ``env`` (Codex's roots, Claude Code's, extra, built-in)."""
    builtin = None
    if options.include_builtin:
        builtin = options.builtin_dir
        if builtin is None:
            from skillshelf.skills.builtin import current_builtin_dir

            builtin = current_builtin_dir(env.dirs.data)
    installed = env.dirs.data / "skills" if options.include_installed else None
    codex = read_codex_settings(env.codex_home)
    markers = options.project_root_markers
    if markers is None:
        markers = codex.project_root_markers
    if markers is not None:
        env = replace(env, project_root_markers=markers)
    roots = skill_roots(
        env,
        extra=options.extra_roots,
        include_claude=options.include_claude,
        builtin=builtin,
        installed=installed,
        bundled=options.bundled,
    )
    limits, notes = limits_from_environ(env.environ, options.limits)
    notes += codex.diagnostics
    notes += tuple(
        note for layer in codex_settings_layers(env)[1:] for note in layer.diagnostics if note.code == "SK232"
    )
    cache = env.dirs.cache / CACHE_FILE if options.use_cache else None
    found = _Discoverer(limits, cache, options.max_skill_bytes).run(roots)
    return replace(found, diagnostics=(*notes, *found.diagnostics)) if notes else found


_DEFAULT_LIMITS = ScanLimits()
_LOOKUP = object()  # "find this skill's namespace from its own folder"


def discover_in(
    paths: Sequence[Path], *, limits: ScanLimits = _DEFAULT_LIMITS, cache: Path | None = None
) -> Discovery:
    """Find skills in arbitrary folders, skill folders or ``SKILL.md`` files (user scope, origin
    extra); ``cache`` is the parsed-skill cache file to use, if any."""
    return _Discoverer(limits, cache, MAX_SKILL_BYTES).run(extra_roots(paths))


def discover_claude(env: Env, *, use_cache: bool = True) -> Discovery:
    """The skills of Claude Code's own roots alone (:func:`~skillshelf.skills.roots.claude_roots`),
    as Claude Code sees them: a skill linked into both Codex's and Claude Code's folders is here
    too."""
    limits, notes = limits_from_environ(env.environ, ScanLimits())
    cache = env.dirs.cache / CACHE_FILE if use_cache else None
    found = _Discoverer(limits, cache, MAX_SKILL_BYTES).run(claude_roots(env))
    return replace(found, diagnostics=(*notes, *found.diagnostics)) if notes else found


def read_skill_body(skill: Skill) -> str:
    """The markdown after the frontmatter of ``skill`` (read now, from disk; of a file over
    :data:`MAX_SKILL_BYTES`, what its first ones hold)."""
    from skillshelf.errors import FileAccessError, reason
    from skillshelf.skills.skill_files import read_head_text

    try:
        text, _ = read_head_text(skill.path, MAX_SKILL_BYTES)
    except OSError as exc:
        raise FileAccessError(
            f"cannot read {skill.path}: {reason(exc)}",
            hint="check that the skill still exists (run `skillshelf list`)",
        ) from exc
    from skillshelf.skills.parse import split_body

    return split_body(text)


class _Discoverer:
    def __init__(self, limits: ScanLimits, cache: Path | None, max_bytes: int) -> None:
        self.limits = limits
        self.max_bytes = max_bytes
        self.cache = SkillCache(cache) if cache is not None else None
        self.skills: list[Skill] = []
        self.roots: list[SkillRoot] = []
        self.scans: list[RootScan] = []
        self.diagnostics: list[Diagnostic] = []
        self.seen_files: set[str] = set()
        self.seen_roots: set[str] = set()
        self.namespaces = NamespaceResolver()

    def run(self, roots: Sequence[SkillRoot]) -> Discovery:
        # Thousands of acyclic values are built here: pause the cyclic GC, whose passes over
        # them would be a fifth of a warm run, and resume it as it was.
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            for root in roots:
                self.scan(root)
            self.skills.sort(key=lambda s: (s.scope.load_rank, s.name, str(s.real_path or s.path)))
        finally:
            if gc_was_on:
                gc.enable()
        if self.cache is not None:
            self.cache.save()
        self.skills, shadowed = without_shadowed_builtins(self.skills)
        self.skills, copies = without_claude_copies(self.skills)
        self.diagnostics.extend(
            (*shadowed, *copies, *duplicate_names(self.skills), *look_alike_names(self.skills))
        )
        return Discovery(
            skills=tuple(self.skills),
            roots=tuple(self.roots),
            scans=tuple(self.scans),
            diagnostics=tuple(self.diagnostics),
        )

    def _resolve(self, root: SkillRoot) -> tuple[str, bool] | None:
        """``(canonical path, is a file)`` for a root to scan, else ``None`` (noted)."""
        path = str(root.path)
        explicit = root.origin is RootOrigin.EXTRA
        if not os.path.lexists(path):
            if explicit:
                self._note(
                    path,
                    "SK202",
                    Severity.WARNING,
                    "this root does not exist",
                    "check the path given with --root",
                )
            return self._unscanned(root)
        if not root.follow_symlinks and os.path.islink(path):
            self._note(
                path,
                "SK207",
                Severity.INFO,
                "this root is a symlink and is not followed for its scope",
                "point the scope's folder at a real directory",
            )
            return self._unscanned(root)
        real = os.path.realpath(path)
        if (explicit or root.origin is RootOrigin.CLAUDE_PLUGIN) and os.path.isfile(real):
            return real, True
        if not os.path.isdir(real):
            self._note(
                path,
                "SK201",
                Severity.WARNING,
                "this root is not a folder (or a link to a missing one)",
                "remove it or make it a folder of skills",
            )
            return self._unscanned(root)
        return real, False

    def _note(self, path: str, code: str, severity: Severity, message: str, fix: str) -> None:
        self.diagnostics.append(diagnostic(code, severity, message, fix, path))

    def _unscanned(self, root: SkillRoot) -> tuple[str, bool] | None:
        """Record ``root`` as not scanned (missing or refused): nothing to resolve."""
        self.scans.append(RootScan(root=root, exists=False))
        return None

    def scan(self, root: SkillRoot) -> None:
        resolved = self._resolve(root)
        if resolved is None:
            return
        real, is_file = resolved
        if real in self.seen_roots:
            return
        self.seen_roots.add(real)
        if is_file:
            walk = _single_file(real)
            root = replace(root, path=Path(real).parent)
        else:
            root = replace(root, path=Path(real))
            walk = self.walk(root, real)
        self.roots.append(root)
        self.namespaces.known_plain |= walk.plain_dirs
        self.diagnostics.extend(walk.diagnostics)
        self.diagnostics.extend(limit_diagnostics(root, walk, self.limits))
        found = 0
        # No plugin folder anywhere in the walk: every skill reached without a symlink shares the
        # root's own namespace (usually none), so look it up once.
        claude = is_claude_root(root)
        shared = None if claude or walk.has_plugin_markers else self.namespaces.namespace(str(root.path))
        for item in walk.files:
            if item.canonical in self.seen_files:
                continue
            self.seen_files.add(item.canonical)
            if claude:
                namespace: str | None | object = root.namespace
            elif walk.has_plugin_markers or item.canonical != item.path:
                namespace = _LOOKUP
            else:
                namespace = shared
            skill = self.parse(item, root, namespace, claude)
            if skill is not None:
                found += 1
        self.scans.append(
            RootScan(
                root=root,
                exists=True,
                skill_files=found,
                dirs_visited=walk.dirs_visited,
                entries_seen=walk.entries_seen,
                truncated=walk.truncated,
                limit=walk.limit,
                unvisited_dirs=walk.unvisited_dirs,
            )
        )

    def walk(self, root: SkillRoot, real: str) -> WalkResult:
        if is_claude_root(root):
            return walk_claude_root(real, limits=self.limits)
        if self.cache is None:
            return walk_root(real, follow_symlinks=root.follow_symlinks, limits=self.limits)
        limits = self.limits
        key = f"{real}\0{root.follow_symlinks}\0{limits.max_depth}/{limits.max_dirs}/{limits.max_entries}"
        stored = self.cache.get_walk(key)
        if stored is not None and (reused := restore_walk(stored)) is not None:
            return reused
        walk = walk_root(real, follow_symlinks=root.follow_symlinks, limits=limits, record=True)
        self.cache.put_walk(key, snapshot_walk(walk))
        return walk

    def parse(
        self, item: FoundFile, root: SkillRoot, namespace: str | None | object = None, claude: bool = False
    ) -> Skill | None:
        signature: list[object] = [
            item.size,
            item.mtime_ns,
            item.ctime_ns,
            _openai_signature(item) if item.has_agents else None,
            claude,
            self.max_bytes,
        ]
        cached = self.cache.get(item.path, signature, root) if self.cache is not None else None
        if cached is None:
            parsed = _parser().read_skill(
                Path(item.path), root, max_bytes=self.max_bytes, probe_openai_yaml=item.has_agents
            )
            skill: Skill | None = parsed.skill
            diags: tuple[Diagnostic, ...] = parsed.diagnostics
            if self.cache is not None:
                self.cache.put(item.path, signature, skill, diags)
        else:
            skill, diags = cached
        self.diagnostics.extend(diags)
        if skill is None:
            return None
        if skill.policy.products and "codex" not in skill.policy.products:
            self.diagnostics.append(
                diagnostic(
                    "SK221",
                    Severity.INFO,
                    f"skill {skill.name!r} is for {', '.join(skill.policy.products)} only "
                    "(agents/openai.yaml policy.products); skipped as Codex skips it",
                    "add `codex` to policy.products if it should load here",
                    skill.path,
                )
            )
            return None
        if namespace is _LOOKUP:
            namespace = self.namespaces.namespace(os.path.dirname(item.canonical))
        changes: dict[str, object] = {}
        if isinstance(namespace, str):
            name = (
                f"{namespace}:{skill.name}"
                if claude
                else qualified_name(namespace, skill.name, path=skill.path, out=self.diagnostics)
            )
            if name is None:  # too long for Codex (SK130)
                return None
            changes["name"] = name
        if item.canonical != item.path:
            changes["real_path"] = skill_path(item.canonical)
        if changes:
            skill = replaced(skill, **changes)
        self.skills.append(skill)
        return skill


_PARSE: list[ModuleType] = []


def _parser() -> ModuleType:
    """The parse module, imported on the first cache miss (it brings in YAML)."""
    if not _PARSE:
        from skillshelf.skills import parse

        _PARSE.append(parse)
    return _PARSE[0]


def _openai_signature(item: FoundFile) -> list[int] | None:
    if not item.has_agents:
        return None
    try:
        st = os.stat(os.path.join(os.path.dirname(item.path), "agents", "openai.yaml"))
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _single_file(path: str) -> WalkResult:
    result = WalkResult(dirs_visited=0, entries_seen=1)
    try:
        st = os.stat(path)
    except OSError:
        return result
    has_agents = os.path.isdir(os.path.join(os.path.dirname(path), "agents"))
    result.files.append(found_file(path, path, has_agents, st))
    return result

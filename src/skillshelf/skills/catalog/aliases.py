"""Root aliases for the Codex format: ``r0``, ``r1``... stand for skill roots.

The roots table lists, in root order, the roots of the skills the model may see (left-out
skills included). A skill path under an aliased root is written ``rN/<relative path>``. A root
whose skills all come from an untrusted project carries :data:`UNTRUSTED_ROOT` on its line, so
its entries need no tag of their own (:meth:`AliasPlan.untrusted_aliases`).
Skills from Codex's plugin cache (``.../plugins/cache/<marketplace>/<plugin>/<version>/...``)
share one alias per plugin version when that version has several skills, else one per
marketplace folder, as Codex does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

from skillshelf.skills.load import UNTRUSTED_TAG, path_text
from skillshelf.skills.model import RootOrigin, Skill

__all__ = ["UNTRUSTED_ROOT", "AliasPlan", "build_alias_plan", "display_path", "root_sort_key"]

UNTRUSTED_ROOT = f"{UNTRUSTED_TAG}: every skill under this root"

# Codex's root order: project .codex/skills (nearest first), $CODEX_HOME/skills,
# ~/.agents/skills, $CODEX_HOME/skills/.system, /etc/codex/skills, plugins, extra roots,
# then .agents/skills from the project root down to the cwd. Others follow.
_ORIGIN_RANK: dict[RootOrigin, int] = {
    RootOrigin.CODEX_PROJECT: 0,
    RootOrigin.CODEX_USER: 1,
    RootOrigin.AGENTS_USER: 2,
    RootOrigin.CODEX_SYSTEM: 3,
    RootOrigin.CODEX_ADMIN: 4,
    RootOrigin.CODEX_PLUGIN: 5,
    RootOrigin.EXTRA: 6,
    RootOrigin.AGENTS_REPO: 7,
    RootOrigin.CLAUDE_PROJECT: 8,
    RootOrigin.CLAUDE_USER: 9,
    RootOrigin.CLAUDE_MANAGED: 10,
    RootOrigin.CLAUDE_PLUGIN: 11,
    RootOrigin.INSTALLED: 12,
    RootOrigin.MEMORY: 13,
    RootOrigin.BUILTIN: 14,
}


def display_path(path: PurePath | str) -> str:
    """A path as the catalog writes it: forward slashes only, bytes that are not UTF-8 as
    U+FFFD (:func:`~skillshelf.skills.load.path_text`)."""
    text = str(path)
    return path_text(text.replace("\\", "/") if "\\" in text else text)


def root_sort_key(origin: RootOrigin, root: PurePath) -> tuple[int, int]:
    """Where a root sits in Codex's root order when the caller did not give the order.

    Roots of one origin at one depth keep the order of their first skill in the catalog.
    """
    depth = len(root.parts)
    # Project .codex layers come nearest-the-cwd first; .agents/.claude layers root first.
    signed = -depth if origin is RootOrigin.CODEX_PROJECT else depth
    return (_ORIGIN_RANK.get(origin, len(_ORIGIN_RANK)), signed)


@dataclass(frozen=True, slots=True, kw_only=True)
class AliasPlan:
    """The roots table: ``roots[i]`` is written ``r{i}``."""

    roots: tuple[str, ...]

    def root_lines(self, untrusted: frozenset[str] = frozenset()) -> tuple[str, ...]:
        """The table's lines; an alias in ``untrusted`` (``"r0"``...) is marked as such."""
        return tuple(
            f"- `r{i}` = `{root}`" + (f" {UNTRUSTED_ROOT}" if f"r{i}" in untrusted else "")
            for i, root in enumerate(self.roots)
        )

    @staticmethod
    def untrusted_aliases(skills: Sequence[Skill], short_paths: Sequence[str]) -> frozenset[str]:
        """The aliases under which every skill is untrusted (``short_paths``: each skill's path
        as :meth:`shorten_all` writes it)."""
        verdicts: dict[str, bool] = {}
        for skill, path in zip(skills, short_paths, strict=True):
            alias, slash, _ = path.partition("/")
            if slash and alias[:1] == "r" and alias[1:].isdigit():
                verdicts[alias] = verdicts.get(alias, True) and not skill.trusted
        return frozenset(alias for alias, untrusted in verdicts.items() if untrusted)

    def shorten(self, path: str) -> str:
        """``path`` relative to the longest aliased root holding it (the first of equally long
        ones), written ``rN/...``; unchanged when no root holds it."""
        return self.shorten_all([path])[0]

    def shorten_all(self, paths: Sequence[str]) -> list[str]:
        """:meth:`shorten` for many paths, the roots prepared once (longest first, then in order)."""
        stems = sorted(
            ((root.rstrip("/"), i) for i, root in enumerate(self.roots)), key=lambda x: (-len(x[0]), x[1])
        )
        prefixes = [(stem + "/", len(stem), f"r{i}") for stem, i in stems]
        out: list[str] = []
        for path in paths:
            for prefix, size, alias in prefixes:
                if path.startswith(prefix):
                    out.append(alias + path[size:])
                    break
            else:
                out.append(path)
        return out


def _plugin_bases(root: str) -> tuple[str, str] | None:
    """``(plugin version folder, marketplace folder)`` for a root in Codex's plugin cache."""
    parts = root.split("/")
    for i in range(len(parts) - 4):
        if parts[i] == "plugins" and parts[i + 1] == "cache" and all(parts[i + 2 : i + 5]):
            return "/".join(parts[: i + 5]), "/".join(parts[: i + 3])
    return None


def build_alias_plan(skills: Sequence[Skill], root_order: Sequence[Path] | None) -> AliasPlan | None:
    """The alias plan for ``skills`` (the visible ones, in catalog order); None without roots."""
    if not skills:
        return None
    order = {display_path(p): i for i, p in enumerate(root_order or ())}
    # Many skills share one root object: work out each (root, origin) once, keyed by identity
    # (Path and enum hashes are Python code); equal roots in other objects just repeat the work.
    keys: dict[tuple[int, int], tuple[str, tuple[int, tuple[int, int]]]] = {}
    found: list[tuple[str, tuple[int, tuple[int, int]]]] = []
    for skill in skills:
        ident = (id(skill.root), id(skill.origin))
        known = keys.get(ident)
        if known is None:
            text = display_path(skill.root)
            given = order.get(text)
            known = keys[ident] = (
                text,
                (given if given is not None else len(order), root_sort_key(skill.origin, skill.root)),
            )
        found.append(known)
    ranked = sorted(range(len(found)), key=lambda i: found[i][1])  # stable: ties keep catalog order
    alias_roots = [found[i][0] for i in ranked]
    bases_of = {root: _plugin_bases(root) for root in dict.fromkeys(alias_roots)}
    per_version: dict[str, int] = {}
    for root in alias_roots:
        bases = bases_of[root]
        if bases is not None:
            per_version[bases[0]] = per_version.get(bases[0], 0) + 1
    table: list[str] = []
    for root in alias_roots:
        bases = bases_of[root]
        shared = bases[1] if bases is not None and per_version.get(bases[0], 0) <= 1 else root
        if shared not in table:
            table.append(shared)
    return AliasPlan(roots=tuple(table)) if table else None

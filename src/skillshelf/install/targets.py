"""Where ``install --for`` puts a skill so that the chosen agents read it.

- ``codex``: ``~/.agents/skills`` (user) or the project's ``.agents/skills``: Codex scans
  both (and so does skillshelf);
- ``claude``: ``~/.claude/skills`` (``$CLAUDE_CONFIG_DIR/skills``) or the project's
  ``.claude/skills``, one level deep as Claude Code reads them;
- a Claude Code folder that is a symlink to the Codex folder of its scope (or the other way
  round) is one folder both read: ``--for claude`` and ``--for codex`` install there for both
  agents (the lock entry's ``agents``, the summary, the check of a taken ``name``), so the
  same source installed there for either is already installed;
- ``all``: the skill goes in the Codex folder and Claude Code's folder gets a symbolic link
  to it (relative inside a project, so the pair can be committed); Claude Code 2.1.197 lists a
  linked skill folder like any other (checked with the pinned CLI). Something else in the
  link's place is refused (``IS308``); with ``--force``, what skillshelf did not install there
  is moved to ``replaced-skills`` (``IS315`` says where), while a skill it installed there
  must be removed first;
- ``skillshelf``: skillshelf's own data folder (user scope only), which no agent reads.

Without ``--for``, ``install.agents`` in the config decides; else the agents found on this
machine (Codex: ``$CODEX_HOME`` or ``codex`` on the PATH; Claude Code: ``~/.claude`` or
``claude`` on the PATH): both gives ``all``, one gives that one, none gives ``codex`` (the
shared ``.agents/skills`` folder). The choice is recorded in the lock entry (``agents``,
``links``), so ``update`` keeps it and ``remove`` takes the links away too.

Without ``--scope``, ``install.scope`` in the config decides (:func:`default_scope`), else
``user``; ``--for skillshelf`` has only the user scope, so there it is ``user`` whatever the
config says.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillshelf.config.edit_text import outside_of
from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.env import Env
from skillshelf.errors import InstallError, UsageError
from skillshelf.fileio import resolve_path
from skillshelf.install.agents_found import agents_found
from skillshelf.install.kept import SetAside, set_aside
from skillshelf.install.lock import read_lock
from skillshelf.install.visibility import agent_roots
from skillshelf.skills.model import RootOrigin
from skillshelf.skills.roots import codex_roots

__all__ = [
    "TARGETS",
    "InTheWay",
    "InstallTarget",
    "Placement",
    "default_scope",
    "default_target",
    "drop_links",
    "put_back_links",
    "inside_project",
    "links_not_kept",
    "listed_beside",
    "make_links",
    "own_link",
    "placement",
    "place_links",
    "sharing_names",
    "unlink_links",
]

InstallTarget = Literal["codex", "claude", "all", "skillshelf"]
TARGETS: tuple[InstallTarget, ...] = ("codex", "claude", "all", "skillshelf")


@dataclass(frozen=True, slots=True, kw_only=True)
class Placement:
    """The folder a skill is installed into, the folders that get a link to it, and for whom."""

    root: Path
    link_roots: tuple[Path, ...] = ()
    agents: tuple[str, ...] = ()


def placement(scope: Literal["user", "project"], target: InstallTarget, env: Env) -> Placement:
    if target == "skillshelf":
        if scope != "user":
            raise UsageError(
                "--for skillshelf installs into skillshelf's own data folder, which has no project scope",
                hint="use --scope user with --for skillshelf, or --for codex|claude|all in a project",
            )
        return Placement(root=env.dirs.data / "skills")
    roots = agent_roots(scope, env)
    # one folder under two names (``~/.claude/skills -> ~/.agents/skills``) is read by both
    # agents whichever name it is installed under, and needs no link in it to itself
    shared = os.path.realpath(roots["claude"]) == os.path.realpath(roots["codex"])
    if target == "all":
        links = () if shared else (roots["claude"],)
        return Placement(root=roots["codex"], link_roots=links, agents=("codex", "claude"))
    return Placement(root=roots[target], agents=("codex", "claude") if shared else (target,))


def sharing_names(root: Path, agents: Sequence[str], env: Env) -> tuple[Path, ...]:
    """The skills folders where another skill of the same ``name`` clashes with one installed in
    ``root`` for ``agents``: every folder of the user's, the project's or another install that Codex
    reads from the cwd when Codex reads it (it lists skills by ``name``; it reads ``root`` when it
    is one of its folders under another name, whatever ``agents`` says): the user's, the
    project's from its root down to the cwd, the ``.codex/skills`` of its config layers
    (:func:`codex_roots`; not its plugins', whose skills it names ``PLUGIN:NAME``, nor its bundled
    and admin folders, :func:`listed_beside`), ``root`` alone for skillshelf's own folder, none
    for Claude Code alone (it lists skills by folder name)."""
    if not agents:
        return (root,)
    read = [r.path for r in codex_roots(env) if r.origin not in _NOT_REFUSED]
    codex = (agent_roots("user", env)["codex"], agent_roots("project", env)["codex"], *read)
    return tuple(dict.fromkeys((root, *codex))) if _codex_reads(root, agents, codex) else ()


#: Codex's own folders: ``$CODEX_HOME/skills/.system`` (its bundled skills, a cache it deletes and
#: writes again itself, with a ``skill-creator`` that sources such as anthropics/skills also ship),
#: the admin folder (``/etc/codex/skills``, not the user's to change) and its plugins' folders.
_NOT_REFUSED = frozenset({RootOrigin.CODEX_SYSTEM, RootOrigin.CODEX_ADMIN, RootOrigin.CODEX_PLUGIN})


def listed_beside(root: Path, agents: Sequence[str], env: Env) -> tuple[Path, ...]:
    """Codex's bundled and admin skills folders when Codex reads ``root`` (as
    :func:`sharing_names` decides): a skill of the same ``name`` there is no refusal, as Codex
    lists both (``IS133`` says so)."""
    if not agents:
        return ()
    roots = codex_roots(env)
    own = [r.path for r in roots if r.origin in (RootOrigin.CODEX_SYSTEM, RootOrigin.CODEX_ADMIN)]
    read = [r.path for r in roots if r.origin not in _NOT_REFUSED]
    codex = (agent_roots("user", env)["codex"], agent_roots("project", env)["codex"], *read)
    return tuple(own) if _codex_reads(root, agents, codex) else ()


def _codex_reads(root: Path, agents: Sequence[str], codex: Sequence[Path]) -> bool:
    """Whether Codex reads ``root``: installed for it, or one of its folders ``codex``."""
    real = os.path.realpath(root)
    return "codex" in agents or any(os.path.realpath(folder) == real for folder in codex)


def inside_project(scope: Literal["user", "project"], env: Env, folders: Sequence[Path]) -> None:
    """Refuse, before anything is written, a project's skills folder (or links folder) that a
    symlink leads out of the project: a cloned repository can commit ``.claude -> ~/.claude``,
    and skills, links and the lock file would land in the user's own folders.

    Raises:
        InstallError: ``IS314``, naming the folder and where it really is.
    """
    if scope != "project":
        return
    for folder in folders:
        real = outside_of(folder, env.project_root)
        if real is not None:
            link = _first_link(folder, env.project_root)
            raise InstallError(
                f"{folder} leads out of the project through a symlink, to {real}; nothing was changed",
                hint=f"remove the symlink {link} (never what it points to) so the project's own folder is "
                "used, or install with --scope user",
                code="IS314",
            )


def _first_link(folder: Path, root: Path) -> Path:
    """The first symlink on the way from ``root`` down to ``folder`` (``folder`` itself if none is)."""
    try:
        parts = folder.relative_to(root).parts
    except ValueError:
        return folder
    place = root
    for part in parts:
        place = place / part
        if place.is_symlink():
            return place
    return folder


def default_scope(configured: object = None, target: str | None = None) -> Literal["user", "project"]:
    """``install.scope`` from the config when set, else ``user``; always ``user`` for
    ``--for skillshelf`` (skillshelf's own data folder, which has no project scope)."""
    if configured == "project" and target != "skillshelf":
        return "project"
    return "user"


def default_target(env: Env, configured: object = None) -> InstallTarget:
    """``install.agents`` from the config when set, else the agents installed here."""
    if configured in ("codex", "claude", "all"):
        return configured
    codex, claude = agents_found(env)
    if codex and claude:
        return "all"
    return "claude" if claude else "codex"


def _points_to(link: Path, target: Path) -> bool:
    return link.is_symlink() and os.path.realpath(link) == os.path.realpath(target)


def _is_itself(link: Path, target: Path) -> bool:
    """Whether ``link``'s place is ``target`` itself, reached through a symlinked folder (a
    skills folder shared under two names, such as ``~/.claude/skills -> ~/.agents/skills``)."""
    return not link.is_symlink() and os.path.realpath(link) == os.path.realpath(target)


@dataclass(frozen=True, slots=True, kw_only=True)
class InTheWay:
    """What holds the places of a skill's links although skillshelf did not install it there,
    kept aside for them by ``install --force`` (``asides``: where each goes, once planned)."""

    places: tuple[Path, ...] = ()
    asides: tuple[SetAside, ...] = ()

    def keep(self, kept_root: Path, work: Path) -> InTheWay:
        """Plan where each place is kept: a fresh folder under ``kept_root``
        (:func:`~skillshelf.install.kept.set_aside` copies it there now across file systems)."""
        planned: list[SetAside] = []
        try:
            for number, place in enumerate(self.places):
                planned.append(set_aside(place, place.name, kept_root, work / f"link-{number}", keep=True))
        except BaseException:
            InTheWay(asides=tuple(planned)).drop_copies()
            raise
        return InTheWay(places=self.places, asides=tuple(planned))

    def drop_copies(self) -> None:
        """Remove the copies made across file systems (the change failed, the originals stay)."""
        for aside in self.asides:
            aside.drop_copy()

    def notes(self, target: Path) -> tuple[Diagnostic, ...]:
        """``IS315`` for each place: where it is kept (not yet planned: a dry run, where it would go)."""
        kept: list[Path | None] = [aside.kept for aside in self.asides] or [None] * len(self.places)
        return tuple(
            diagnostic(
                "IS315",
                Severity.INFO,
                f"{place} was not installed by skillshelf: "
                + (f"it is kept in {at}, and" if at else "--force moves it to replaced-skills/ so that")
                + f" the link to {target} takes its place",
                f"delete {at} once you no longer need it" if at else "nothing is moved in a dry run",
                place,
            )
            for place, at in zip(self.places, kept, strict=True)
        )


def place_links(
    links: Sequence[Path], target: Path, in_the_way: InTheWay, *, relative: bool, then: Callable[[], object]
) -> None:
    """Move what is in the way aside, link each of ``links`` to ``target`` and run ``then`` (the
    lock's write); when a step fails, the links made are taken away and the places put back."""
    moved: list[tuple[Path, Path]] = []
    made: list[Path] = []
    try:
        for place, aside in zip(in_the_way.places, in_the_way.asides, strict=True):
            os.rename(place, aside.trash)
            moved.append((place, aside.trash))
        made = [link for link in links if not (link.exists() or link.is_symlink())]
        make_links(links, target, relative=relative)
        then()
    except BaseException:
        unlink_links(made)
        for place, trash in reversed(moved):
            with contextlib.suppress(OSError):
                os.rename(trash, place)
        raise


def check_links(links: Sequence[Path], target: Path, *, force: bool = False, scope: str = "user") -> InTheWay:
    """Refuse before anything changes when a link's place holds something else; with ``force``,
    return instead the places that hold what skillshelf did not install there (the caller keeps
    them aside). A skill skillshelf installed in a link's place is refused even then: its own
    lock entry would be left naming a link.

    Raises:
        InstallError: ``IS308``, naming the place and what to do.
    """
    blocked: list[Path] = []
    for link in links:
        if not (link.exists() or link.is_symlink()) or _points_to(link, target) or _is_itself(link, target):
            continue
        if _installed_in(link):
            where = " --scope project" if scope == "project" else ""
            raise InstallError(
                f"{link} holds the skill {link.name!r} that skillshelf installed there, so the link to "
                f"{target} cannot take its place",
                hint=f"remove that one first (`skillshelf remove {link.name} --for claude{where}`), or "
                "install with --name",
                code="IS308",
            )
        if not force:
            raise InstallError(
                f"{link} already exists and is not a link to {target}",
                hint="move it away (it may be another skill of the same name), install with --name, or pass "
                "--force to move it to replaced-skills/ in skillshelf's data folder",
                code="IS308",
            )
        blocked.append(link)
    return InTheWay(places=tuple(blocked))


def _installed_in(place: Path) -> bool:
    """Whether the lock of the folder holding ``place`` has an entry for it."""
    try:
        return read_lock(place.parent).get(place.name) is not None
    except (InstallError, OSError):
        return False


def own_link(place: Path) -> Path | None:
    """The installed folder ``place`` leads to when ``place`` is a link skillshelf made to it
    (``install --for all``: that folder's lock entry lists the link), else None."""
    if not place.is_symlink():
        return None
    try:
        real = resolve_path(place)
        entry = read_lock(real.parent).get(real.name)
    except (InstallError, OSError):
        return None
    here = os.path.realpath(place.parent)
    ours = entry is not None and any(
        Path(link).name == place.name and os.path.realpath(Path(link).parent) == here for link in entry.links
    )
    return real if ours else None


def make_links(links: Sequence[Path], target: Path, *, relative: bool) -> None:
    """Link each of ``links`` to ``target`` (relative links for a project's folders)."""
    for link in links:
        if _points_to(link, target) or _is_itself(link, target):
            continue
        link.parent.mkdir(parents=True, exist_ok=True)
        to = os.path.relpath(target, link.parent) if relative else str(target)
        os.symlink(to, link, target_is_directory=True)


def drop_links(links: Sequence[str], target: Path) -> list[tuple[Path, str]]:
    """Take away the links that still point to ``target`` or lead nowhere (others are left
    alone); return each taken link with its text, for :func:`put_back_links`. All or none:
    when one cannot be taken away, those already taken are made again.

    Raises:
        InstallError: (IS316) a link cannot be taken away; nothing was changed.
    """
    taken: list[tuple[Path, str]] = []
    for link in map(Path, links):
        try:
            if not (_points_to(link, target) or (link.is_symlink() and not link.exists())):
                continue
            text = os.readlink(link)
            link.unlink()
        except OSError as exc:
            put_back_links(taken)
            raise InstallError(
                f"cannot take away the link {link} to {target}: {exc}; nothing was changed",
                hint=f"make {link.parent} writable (or delete the link {link} yourself), then run it again",
                code="IS316",
            ) from exc
        taken.append((link, text))
    return taken


def put_back_links(taken: Sequence[tuple[Path, str]]) -> None:
    """Make again the links :func:`drop_links` took away (what cannot be made is left)."""
    for link, text in reversed(taken):
        with contextlib.suppress(OSError):
            os.symlink(text, link, target_is_directory=True)


def links_not_kept(old: Sequence[str], links: Sequence[Path], root: Path, target: Path) -> list[Path]:
    """The links ``old`` (a replaced lock entry's) that ``links`` no longer has: only symlinks
    that lead to ``target`` (a lock names any path; nothing else is ever taken away). A
    relative one is read from ``root``."""
    kept = {str(link) for link in links}
    places = (root / link for link in old)  # an absolute link stays as it is
    return [place for place in places if str(place) not in kept and _points_to(place, target)]


def unlink_links(links: Sequence[Path]) -> None:
    """Take away each of ``links`` that is a symlink (what cannot be removed is left)."""
    for link in links:
        with contextlib.suppress(OSError):
            if link.is_symlink():
                link.unlink()

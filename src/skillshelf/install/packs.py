"""The installed skills of one pack (a source installed with ``install SOURCE --all``), for
``remove --pack SOURCE``.

The pack is named as it was typed for ``install`` or as ``update`` prints it (its canonical
source text). A local folder that is gone since still names its pack by its path.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from skillshelf.env import Env
from skillshelf.errors import NotFoundError, SkillshelfError
from skillshelf.install.installed import InstalledSkill
from skillshelf.install.installer import InstallScope
from skillshelf.install.manage import list_installed
from skillshelf.install.sources import parse_source

__all__ = ["pack_members"]


def pack_members(source: str, *, env: Env, scope: InstallScope | None = None) -> tuple[InstalledSkill, ...]:
    """Every installed skill of the pack ``source`` (in ``scope``, or both scopes).

    Raises:
        NotFoundError: (IS407) no installed skill came with that pack.
    """
    keys = _spellings(source, env.cwd)
    installed = list_installed(env, scope=scope)
    members = tuple(item for item in installed if item.entry.pack in keys)
    if not members:
        known = sorted({item.entry.pack for item in installed if item.entry.pack})
        listed = ", ".join(known[:10]) + (f" and {len(known) - 10} more" if len(known) > 10 else "")
        raise NotFoundError(
            f"no skill installed from the pack {source!r}",
            hint=f"packs installed: {listed}"
            if known
            else "no pack is installed; `skillshelf install SOURCE --all` installs one",
            code="IS407",
        )
    return members


def _spellings(source: str, cwd: Path) -> set[str]:
    """The pack keys ``source`` may stand for: as typed, as ``install`` would read it, and (a
    folder that is gone) as an absolute path."""
    typed = source.strip()
    keys = {typed, typed.rstrip("/")}
    with contextlib.suppress(SkillshelfError):
        keys.add(parse_source(typed, cwd=cwd).text)
    if "://" not in typed and not typed.startswith("gh:"):
        keys.add(os.path.normpath(os.path.join(cwd, os.path.expanduser(typed))))
    return keys

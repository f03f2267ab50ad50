"""The ref of a source read from a web page's URL, settled against the remote's refs.

``https://github.com/OWNER/REPO/tree/feature/pdf/skills/pdf`` may be branch ``feature`` with
folder ``pdf/skills/pdf`` or branch ``feature/pdf`` with folder ``skills/pdf``: the page's URL
does not say where the ref ends. :func:`parse_source` guesses the first slash; before the fetch,
:func:`settle_page_ref` asks the remote for its branch and tag names (one ``git ls-remote``) and
takes the longest one the path starts with, as GitHub itself does. When the remote cannot be
asked, the guess stands and the fetch reports what is wrong.
"""

from __future__ import annotations

import dataclasses

from skillshelf.errors import SkillshelfError
from skillshelf.install.git import GitRunner
from skillshelf.install.sources import Source

__all__ = ["settle_page_ref"]


def settle_page_ref(source: Source, git: GitRunner) -> Source:
    """``source`` with its ref taken as far into its ``subdir`` as a remote ref name goes."""
    if not source.page_ref or source.kind != "git" or not source.subdir or not source.ref:
        return source
    try:
        refs = git.remote_refs(source.fetch_location)
    except SkillshelfError:
        return source
    parts = source.subdir.split("/")
    for taken in range(len(parts), -1, -1):
        ref = "/".join([source.ref, *parts[:taken]])
        if ref in refs:
            subdir = "/".join(parts[taken:]) or None
            return dataclasses.replace(source, ref=ref, subdir=subdir, page_ref=False)
    return source

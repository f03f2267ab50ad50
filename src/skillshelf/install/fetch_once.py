"""Each source fetched once per ``update`` run, however many installed skills come from it.

``install --all`` leaves one lock entry per skill of a repository; updating them one by one
would clone the repository (and ask the remote for its commit) once per skill. A
:class:`FetchOnce` keeps the whole of each source (``kind``, ``location``, ``ref``) in a scratch
folder for the run and hands out its ``#subdir`` parts; a fetch that failed fails the same way
for the other skills of that source instead of being tried again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from skillshelf.errors import SkillshelfError
from skillshelf.install.files import remove_tree
from skillshelf.install.git import GitRunner, ProgressFn
from skillshelf.install.sources import Fetched, Source, fetch_whole, narrow

__all__ = ["FetchOnce", "fetch_once"]

_Key = tuple[str, str, str | None]


class FetchOnce:
    """Fetches whole sources into ``folder`` (which the caller removes) and remembers them."""

    def __init__(self, folder: Path, git: GitRunner, progress: ProgressFn | None) -> None:
        self.git = git
        self._folder, self._progress = folder, progress
        self._whole: dict[_Key, Fetched | SkillshelfError] = {}
        self._remote: dict[tuple[str, str | None], str | None | SkillshelfError] = {}

    def __call__(self, source: Source) -> Fetched:
        """The files of ``source`` (its ``#subdir`` applied), fetched on first use."""
        key = (source.kind, source.location, source.ref)
        if key not in self._whole:
            work = self._folder / str(len(self._whole))
            work.mkdir()
            whole = dataclasses.replace(source, subdir=None)
            try:
                self._whole[key] = fetch_whole(whole, work, git=self.git, progress=self._progress)
            except SkillshelfError as exc:
                self._whole[key] = exc
        found = self._whole[key]
        if isinstance(found, SkillshelfError):
            raise found
        return narrow(found, source)

    def remote_commit(self, url: str, ref: str | None) -> str | None:
        """:meth:`GitRunner.remote_commit`, asked once per repository and ref."""
        key = (url, ref)
        if key not in self._remote:
            try:
                self._remote[key] = self.git.remote_commit(url, ref)
            except SkillshelfError as exc:
                self._remote[key] = exc
        found = self._remote[key]
        if isinstance(found, SkillshelfError):
            raise found
        return found


@contextlib.contextmanager
def fetch_once(parent: Path, git: GitRunner, progress: ProgressFn | None) -> Iterator[FetchOnce]:
    """A :class:`FetchOnce` whose scratch folder, made in ``parent`` (on disk, not a small
    ``/tmp``: a clone can be large), is removed afterwards."""
    parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    _clear_stale(parent)
    folder = Path(tempfile.mkdtemp(prefix="fetch-", dir=parent))
    try:
        yield FetchOnce(folder, git, progress)
    finally:
        remove_tree(folder)


#: A scratch folder older than this was left by an ``update`` that was killed (no run lasts a
#: day), so the next run removes it; a younger one may belong to an ``update`` running now.
STALE_AFTER_S = 24 * 3600


def _clear_stale(parent: Path) -> None:
    now = time.time()
    for old in parent.glob("fetch-*"):
        with contextlib.suppress(OSError):
            if now - old.lstat().st_mtime > STALE_AFTER_S:
                remove_tree(old)

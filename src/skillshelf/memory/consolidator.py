"""Who writes the consolidated memory files: the seam between Phase 2 and the model.

Phase 2 builds the prompt (the diff against the last selection, the raw memories, the
folder's current files) and hands it to a :class:`Consolidator`. The consolidator returns a
:class:`ConsolidationOutcome` holding a validated, *not yet applied*
:class:`~skillshelf.memory.phase2.Consolidation`; the runner then re-checks that it still owns
the scope and applies it atomically. Two implementations:

- :class:`DirectConsolidator` (here): one model call that answers with the files as JSON;
- ``skillshelf.agent.consolidate.AgentConsolidator`` (the agent layer, above this one): the
  reference agent with file tools confined to a staged copy of the folder.

:class:`StagedFolder` is what an agent-style consolidator works in: a private copy of the
memory folder; :meth:`StagedFolder.consolidation` turns what was written there into a
``Consolidation`` under the same rules as the JSON reply (writable paths, sizes, redaction,
INIT requirements), so the real folder is only ever changed by ``apply_consolidation``.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Protocol

from skillshelf.errors import ModelCallError
from skillshelf.memory.models import CallBudget, JsonModel
from skillshelf.memory.phase2 import (
    CONSOLIDATION_SYSTEM,
    MAX_FILE_BYTES,
    Consolidation,
    check_consolidation,
    is_writable_memory_path,
    parse_consolidation_reply,
)
from skillshelf.memory.redact.echoes import NO_SECRETS, KnownSecrets
from skillshelf.memory.staging import remove_stale_staging, staging_prefix

__all__ = [
    "BUDGET_SPENT",
    "ConsolidationOutcome",
    "Consolidator",
    "DirectConsolidator",
    "StagedFolder",
    "take_call",
]

BUDGET_SPENT = "ME041"  # the run's model-call budget ran out in the middle of a consolidation

_STAGED_ENTRIES = ("MEMORY.md", "memory_summary.md", "raw_memories.md", "rollout_summaries", "skills")


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsolidationOutcome:
    """A validated consolidation (not yet applied) and how it was obtained."""

    consolidation: Consolidation
    model_calls: int = 1
    consolidator: str = "direct"
    transcript: Path | None = None
    refused: tuple[str, ...] = ()  # tool calls refused (writes outside the allow-list, unknown tools)


class Consolidator(Protocol):
    """Turns a consolidation prompt into the files to write in ``memory_dir``.

    ``prompt`` is the user part (diff, raw memories, current files); the consolidator brings its
    own instructions. ``init`` says the folder has no ``MEMORY.md`` yet (both main files must be
    written). Every model call first takes one unit of ``budget`` (:func:`take_call`). ``known``
    holds the secrets the run took out of transcripts: nothing the consolidator writes (files,
    transcripts) may keep them; the runner scrubs the files it returns again. It must not change
    ``memory_dir``: the runner applies the result after re-checking ownership.
    """

    @property
    def name(self) -> str: ...

    def consolidate(
        self,
        prompt: str,
        memory_dir: Path,
        *,
        init: bool,
        effort: str | None,
        budget: CallBudget | None = None,
        known: KnownSecrets = NO_SECRETS,
    ) -> ConsolidationOutcome: ...


def take_call(budget: CallBudget | None) -> None:
    """Take one model call from ``budget``; ModelCallError ``ME041`` when it is spent."""
    if budget is not None and not budget.take():
        raise ModelCallError(
            f"the budget of {budget.limit} model calls for this run ran out during consolidation",
            code=BUDGET_SPENT,
            hint="nothing was written; raise --max-calls or run again later",
        )


class DirectConsolidator:
    """One model call; the reply is the JSON file list of ``CONSOLIDATION_SYSTEM``. No tools."""

    name = "direct"

    def __init__(self, model: JsonModel) -> None:
        self.model = model

    def consolidate(
        self,
        prompt: str,
        memory_dir: Path,
        *,
        init: bool,
        effort: str | None,
        budget: CallBudget | None = None,
        known: KnownSecrets = NO_SECRETS,
    ) -> ConsolidationOutcome:
        take_call(budget)
        reply = self.model.complete(system=CONSOLIDATION_SYSTEM, user=prompt, schema=None, effort=effort)
        return ConsolidationOutcome(
            consolidation=parse_consolidation_reply(reply, init=init), model_calls=1, consolidator=self.name
        )


def _ignore_special(folder: str, names: list[str]) -> set[str]:
    """copytree filter: keep files, folders and symlinks (as links); drop fifos, sockets, devices."""
    skipped = set()
    for name in names:
        try:
            mode = os.lstat(os.path.join(folder, name)).st_mode
        except OSError:
            skipped.add(name)
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
            skipped.add(name)
    return skipped


def _writable_files(root: Path) -> dict[str, Path]:
    """Regular files (not symlinks, not below a symlink) that consolidation may write."""
    found: dict[str, Path] = {}
    for name in ("MEMORY.md", "memory_summary.md"):
        path = root / name
        if path.is_file() and not path.is_symlink():
            found[name] = path
    skills = root / "skills"
    if skills.is_dir() and not skills.is_symlink():
        for dirpath, dirnames, filenames in os.walk(skills):  # os.walk does not follow symlinked folders
            dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
            for filename in filenames:
                path = Path(dirpath) / filename
                relative = path.relative_to(root).as_posix()
                if not path.is_symlink() and path.is_file() and is_writable_memory_path(relative):
                    found[relative] = path
    return found


def _text_of(data: bytes, relative: str) -> str:
    if len(data) > MAX_FILE_BYTES:
        raise ModelCallError(
            f"{relative} is larger than {MAX_FILE_BYTES} bytes",
            code="ME036",
            hint="retry; the consolidation was discarded",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ModelCallError(
            f"{relative} is not UTF-8 text", code="ME036", hint="retry; the consolidation was discarded"
        ) from exc


class StagedFolder:
    """A private copy of a memory folder for a consolidator to write in (removed on exit; one a
    killed process left is removed by the next, :mod:`.staging`).

    Copied: ``MEMORY.md``, ``memory_summary.md``, ``raw_memories.md``, ``rollout_summaries/`` and
    ``skills/`` (symlinks stay symlinks, so confinement checks see them; special files are
    dropped). Use as a context manager; ``path`` is the copy.
    """

    def __init__(self, memory_dir: Path, *, temp_dir: Path | None = None) -> None:
        self.memory_dir = memory_dir
        remove_stale_staging(temp_dir)  # the copies of runs killed before they could remove theirs
        self._temp = Path(tempfile.mkdtemp(prefix=staging_prefix(), dir=temp_dir))
        self.path = self._temp / "memory"
        try:
            self._copy()
        except BaseException:
            shutil.rmtree(self._temp, ignore_errors=True)
            raise

    def _copy(self) -> None:
        self.path.mkdir()
        for name in _STAGED_ENTRIES:
            source = self.memory_dir / name
            if source.is_symlink():
                os.symlink(os.readlink(source), self.path / name)
            elif source.is_dir():
                shutil.copytree(source, self.path / name, symlinks=True, ignore=_ignore_special)
            elif source.is_file():
                shutil.copy2(source, self.path / name)

    def consolidation(
        self, *, init: bool, delete: Sequence[object] = (), extra_files: dict[str, str] | None = None
    ) -> Consolidation:
        """What changed in the copy, validated: new or changed writable files, writable files that
        disappeared (deleted), plus ``delete`` and ``extra_files`` (for paths not written here)."""
        before, after = _writable_files(self.memory_dir), _writable_files(self.path)
        files: dict[str, object] = {}
        for relative, path in after.items():
            old = before.get(relative)
            previous = old.read_bytes() if old is not None else None
            data = path.read_bytes()
            if previous != data:
                files[relative] = _text_of(data, relative)
        for relative, content in (extra_files or {}).items():
            files.setdefault(relative, content)
        removed: list[object] = [r for r in before if r not in after]
        removed += [d for d in delete if d not in removed]
        present = set(after) - {str(d) for d in removed}
        return check_consolidation(files, removed, init=init, present=present)

    def close(self) -> None:
        shutil.rmtree(self._temp, ignore_errors=True)

    def __enter__(self) -> StagedFolder:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

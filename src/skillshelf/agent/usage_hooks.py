"""What the reference agent tells the selection layer about real use.

Every skill the model loads (``load_skill``) or uses implicitly (reads its ``SKILL.md`` or runs
its scripts) is recorded in the usage log, which feeds the usage prior. With shadow metrics on,
each turn also records every selector's top candidates, so ``skillshelf stats`` can report
per-selector hit@k over real usage. Recording never fails a turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.errors import SkillshelfError
from skillshelf.skills.model import Skill

if TYPE_CHECKING:
    from skillshelf.workspace import IndexHandle

__all__ = ["SkillUsage"]


class SkillUsage:
    """The agent's link to :mod:`skillshelf.select.usage` for one conversation."""

    def __init__(
        self,
        skills: Sequence[Skill],
        *,
        project: Path,
        state_dir: Path,
        shadow: bool = False,
        index: IndexHandle | None = None,
    ) -> None:
        """``index`` is the search index over ``skills`` (built here only with ``shadow``)."""
        from skillshelf.select.usage import ShadowRecorder, UsageStore

        store = UsageStore.in_state_dir(state_dir)
        self._paths: dict[str, str] = {}
        for skill in skills:
            self._paths.setdefault(skill.name, str(skill.path))
        self._shadow = shadow
        built = None
        if shadow and skills:
            from skillshelf.workspace import IndexHandle

            built = (index or IndexHandle(tuple(skills), None)).get()
        self._recorder = ShadowRecorder(store, built, project=str(project))

    def turn(self, text: str) -> None:
        """A new user turn: with shadow metrics, record each selector's candidates for it."""
        try:
            self._recorder.turn(text if self._shadow else "")
        except (SkillshelfError, OSError):
            return

    def used(self, name: str, via: str) -> None:
        """The model loaded (``load_skill``) or implicitly used (``implicit``) skill ``name``, or
        the user's message mentioned it (``mention``)."""
        path = self._paths.get(name)
        if path is None:
            return
        try:
            self._recorder.loaded(path, via=via)
        except (SkillshelfError, OSError):
            return

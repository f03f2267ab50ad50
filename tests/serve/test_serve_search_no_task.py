"""search_skills for a query with no task in it: its text and its structured data agree (no
row suggested, ``suggested: 0``), at the default threshold and at ``min_confidence = 0``."""

from __future__ import annotations

from pathlib import Path

import pytest
from serve_helpers import write_skill

from skillshelf.select.ranking import RankingSettings
from skillshelf.serve.tools import SkillTools
from skillshelf.skills.discover import discover_in

pytestmark = pytest.mark.usefixtures("isolated_home")


@pytest.mark.parametrize("threshold", [0.0, None])
def test_search_skills_for_no_task_says_so_and_suggests_nothing_in_its_data_too(
    tmp_path: Path, threshold: float | None
) -> None:
    lib = tmp_path / "lib"
    write_skill(lib, "pdf-forms", "Fill PDF forms. Say thanks when done.", "# Forms\nThanks.\n")
    write_skill(lib, "release-notes", "Draft release notes from the git log.", "# Notes\nThanks.\n")
    settings = None if threshold is None else RankingSettings(min_confidence=threshold)
    found = SkillTools(discover_in([lib]).skills, semantic=False, ranking=settings).dispatch(
        "search_skills", {"query": "thanks!"}
    )
    assert found.text.startswith("No skill suggested") and "holds no task" in found.text
    assert found.data["no_task"] is True and found.data["suggested"] == 0
    assert not [row for row in found.data["results"] if row["suggested"]]

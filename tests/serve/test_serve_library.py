"""The served library: what a listing built before a reload leaves behind once the reload is in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from serve_helpers import write_skill

from skillshelf.serve import library as library_module
from skillshelf.serve.library import SkillLibrary
from skillshelf.skills.bundled_listing import BundledFiles
from skillshelf.skills.discover import discover_in


def _reload_during_first_listing(
    monkeypatch: pytest.MonkeyPatch, library: SkillLibrary, change: Any
) -> list[bool]:
    """Make the first bundled-file listing end with ``change()`` on disk and a reload, as a
    watcher's reload lands while a request lists files."""
    original = library_module.bundled_listing
    done: list[bool] = []

    def listing(folder: Path, **kwargs: Any) -> BundledFiles:
        result = original(folder, **kwargs)
        if not done:
            done.append(True)
            change()
            library.reload()
        return result

    monkeypatch.setattr(library_module, "bundled_listing", listing)
    return done


def test_a_resource_list_built_from_skills_older_than_a_reload_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "a-old", "An old skill.", "# old\n")
    library = SkillLibrary.from_discover(lambda: discover_in([root]))
    done = _reload_during_first_listing(
        monkeypatch, library, lambda: write_skill(root, "b-new", "A new skill.", "# new\n")
    )
    library.all_files()  # built while the reload came in: may be the old set, once
    assert done
    assert ("b-new", "SKILL.md") in {(skill.name, rel) for skill, rel in library.all_files()}


def test_a_skills_file_list_built_before_a_reload_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "skills"
    folder = write_skill(root, "a-skill", "A skill.", "# a\n")
    library = SkillLibrary.from_discover(lambda: discover_in([root]))
    done = _reload_during_first_listing(
        monkeypatch, library, lambda: (folder / "added.md").write_text("x", encoding="utf-8")
    )
    library.files_of(library.tools.get("a-skill"))
    assert done
    assert "added.md" in library.files_of(library.tools.get("a-skill"))

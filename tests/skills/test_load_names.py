"""Loading a skill by name: Unicode's composed and decomposed spellings of a name are one name."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from skillshelf.errors import SkillNotFoundError
from skillshelf.skills.load import close_matches, load_skill
from skillshelf.skills.model import RootOrigin, Scope, Skill

COMPOSED = unicodedata.normalize("NFC", "naïve")
DECOMPOSED = unicodedata.normalize("NFD", "naïve")


def named(root: Path, name: str) -> Skill:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\nbody\n", encoding="utf-8")
    return Skill(
        name=name,
        description="d",
        path=folder / "SKILL.md",
        root=root,
        scope=Scope.USER,
        origin=RootOrigin.EXTRA,
    )


@pytest.mark.parametrize(("stored", "typed"), [(DECOMPOSED, COMPOSED), (COMPOSED, DECOMPOSED)])
def test_a_name_typed_in_the_other_unicode_form_loads_the_skill(
    tmp_path: Path, stored: str, typed: str
) -> None:
    skill = named(tmp_path, stored)
    assert load_skill([skill], typed).skill == skill
    assert load_skill([skill], f"${typed}").skill == skill


def test_the_exact_spelling_wins_over_the_other_form(tmp_path: Path) -> None:
    decomposed, composed = named(tmp_path / "a", DECOMPOSED), named(tmp_path / "b", COMPOSED)
    other = named(tmp_path / "c", f"{DECOMPOSED}-notes")
    assert load_skill([decomposed, composed], COMPOSED).skill == composed
    assert load_skill([decomposed, composed], DECOMPOSED).skill == decomposed
    assert load_skill([other, composed], f"{COMPOSED}-notes").skill == other


def test_no_suggestion_prints_the_same_as_the_name_typed(tmp_path: Path) -> None:
    assert close_matches(COMPOSED, [DECOMPOSED, f"{COMPOSED}-notes"]) == (f"{COMPOSED}-notes",)
    assert close_matches(f"${COMPOSED}", [DECOMPOSED]) == ()
    with pytest.raises(SkillNotFoundError) as caught:
        load_skill([named(tmp_path, DECOMPOSED)], "naive")
    assert caught.value.close == (DECOMPOSED,)


def test_a_skill_loads_by_its_folder_with_a_slash_and_by_a_path_through_a_linked_folder(
    tmp_path: Path,
) -> None:
    skill = named(tmp_path / "real", "pdf")
    os.symlink(tmp_path / "real", tmp_path / "linked")
    for path in (f"{skill.folder}/", tmp_path / "linked" / "pdf", tmp_path / "linked" / "pdf" / "SKILL.md"):
        assert load_skill([skill], str(path)).skill is skill
    with pytest.raises(SkillNotFoundError):
        load_skill([skill], str(tmp_path / "linked" / "nothing"))

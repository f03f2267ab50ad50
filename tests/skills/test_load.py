"""Loading a skill: the `<skill>` fragment, the bundled files and the load_skill tool handler."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from skillshelf.errors import SkillNotFoundError
from skillshelf.skills.load import (
    MAX_WALK_ENTRIES,
    handle_load_skill,
    list_bundled_files,
    load_skill,
    skill_fragment,
)
from skillshelf.skills.model import RootOrigin, Scope, Skill, SkillPolicy

TEXT = "---\nname: {name}\ndescription: Shapes release notes.\n---\n# Steps\n\nDo the thing.\n"


def write_skill(root: Path, name: str, *, hidden: bool = False, files: tuple[str, ...] = ()) -> Skill:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(TEXT.format(name=name), encoding="utf-8")
    for relative in files:
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x", encoding="utf-8")
    return Skill(
        name=name,
        description="Shapes release notes.",
        path=folder / "SKILL.md",
        root=root,
        scope=Scope.REPO,
        origin=RootOrigin.EXTRA,
        policy=SkillPolicy(allow_implicit_invocation=not hidden),
    )


def test_fragment_is_codex_injection_format_with_the_whole_file(tmp_path: Path) -> None:
    skill = write_skill(tmp_path, "notes")
    loaded = load_skill([skill], "notes")
    assert loaded.contents == TEXT.format(name="notes")
    assert (
        loaded.fragment
        == f"<skill>\n<name>notes</name>\n<path>{skill.path}</path>\n{loaded.contents}\n</skill>"
    )
    assert loaded.fragment == skill_fragment(skill, loaded.contents)


def test_a_linked_skill_folders_fragment_names_its_real_skill_md_as_codex_injects_it(tmp_path: Path) -> None:
    real = write_skill(tmp_path / "real", "notes")
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "notes").symlink_to(real.folder, target_is_directory=True)
    linked = replace(real, path=tmp_path / "root" / "notes" / "SKILL.md", real_path=real.path)
    loaded = load_skill([linked], "notes")
    assert loaded.fragment.splitlines()[2] == f"<path>{real.path}</path>"
    assert loaded.contents == TEXT.format(name="notes")
    for path in (real.path, real.folder, linked.path):
        assert load_skill([linked], str(path)).skill == linked


def test_bundled_files_are_listed_scripts_references_assets_first_without_skill_md(tmp_path: Path) -> None:
    skill = write_skill(
        tmp_path,
        "notes",
        files=(
            "zeta.txt",
            "assets/logo.svg",
            "references/api.md",
            "scripts/run.py",
            "agents/openai.yaml",
            ".hidden",
            "__pycache__/x.pyc",
        ),
    )
    loaded = load_skill([skill], "notes")
    assert loaded.files == (
        "scripts/run.py",
        "references/api.md",
        "assets/logo.svg",
        "agents/openai.yaml",
        "zeta.txt",
    )
    assert loaded.more_files == 0


def test_file_list_is_capped_with_a_count_of_the_rest(tmp_path: Path) -> None:
    skill = write_skill(tmp_path, "many", files=tuple(f"references/r{i:02}.md" for i in range(12)))
    files, more = list_bundled_files(skill.folder, limit=5)
    assert files == tuple(f"references/r{i:02}.md" for i in range(5))
    assert more == 7


def test_a_data_folder_past_the_walk_bound_does_not_hide_the_references(tmp_path: Path) -> None:
    skill = write_skill(tmp_path, "big", files=("references/guide.md", "scripts/run.py"))
    data = skill.folder / "data"  # sorts before "references": walked first, it used up the bound
    data.mkdir()
    for i in range(MAX_WALK_ENTRIES + 10):
        (data / f"row{i:05}.csv").touch()
    files, more = list_bundled_files(skill.folder, limit=3)
    assert files[:2] == ("scripts/run.py", "references/guide.md")
    assert more > 0


def test_nested_skills_and_symlinks_leaving_the_folder_are_not_listed(tmp_path: Path) -> None:
    skill = write_skill(tmp_path, "outer", files=("scripts/a.sh",))
    write_skill(skill.folder, "inner", files=("scripts/b.sh",))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("x", encoding="utf-8")
    os.symlink(outside, skill.folder / "link")
    os.symlink(skill.folder, skill.folder / "loop")
    assert load_skill([skill], "outer").files == ("scripts/a.sh",)


def test_file_symlinks_leading_out_of_the_folder_are_not_listed_but_those_inside_are(tmp_path: Path) -> None:
    skill = write_skill(tmp_path, "outer", files=("references/real.md",))
    outside = tmp_path / "outside.md"
    outside.write_text("secret", encoding="utf-8")
    os.symlink(outside, skill.folder / "references" / "passwd.md")
    os.symlink("real.md", skill.folder / "references" / "alias.md")
    os.symlink(tmp_path / "gone.md", skill.folder / "references" / "dangling.md")
    assert load_skill([skill], "outer").files == ("references/alias.md", "references/real.md")
    assert list_bundled_files(skill.folder) == (("references/alias.md", "references/real.md"), 0)


def test_listings_name_only_what_a_confined_read_serves_and_count_only_those(tmp_path: Path) -> None:
    skill = write_skill(tmp_path, "tidy", files=("references/a.md", "references/b.md", "env/.token"))
    os.symlink("../env/.token", skill.folder / "references" / "token.md")  # leads to a hidden file
    (skill.folder / "references" / "bell\x07.md").write_text("x", encoding="utf-8")  # not one plain line
    assert list_bundled_files(skill.folder, limit=1) == (("references/a.md",), 1)
    assert load_skill([skill], "tidy").files == ("references/a.md", "references/b.md")


def test_hidden_skills_load_by_name(tmp_path: Path) -> None:
    skill = write_skill(tmp_path, "quiet", hidden=True)
    assert load_skill([skill], "quiet").skill is skill


def test_first_skill_of_a_name_wins_and_the_others_are_reported(tmp_path: Path) -> None:
    first = write_skill(tmp_path / "a", "dup")
    second = write_skill(tmp_path / "b", "dup")
    loaded = load_skill([first, second], "dup")
    assert loaded.skill is first
    assert loaded.shadowed == (second.path,)
    assert load_skill([first, second], str(second.folder)).skill is second


def test_unknown_name_raises_with_close_matches(tmp_path: Path) -> None:
    skills = [write_skill(tmp_path, "release-notes"), write_skill(tmp_path, "code-review")]
    with pytest.raises(SkillNotFoundError) as caught:
        load_skill(skills, "release-note")
    assert caught.value.code == "SK404"
    assert caught.value.close[0] == "release-notes"
    assert set(caught.value.available) == {"release-notes", "code-review"}


def test_max_bytes_cuts_at_a_character_boundary(tmp_path: Path) -> None:
    skill = write_skill(tmp_path, "wide")
    skill.path.write_text("é" * 100, encoding="utf-8")
    loaded = load_skill([skill], "wide", max_bytes=9)
    assert loaded.truncated and loaded.contents == "éééé"


def test_tool_handler_returns_fragment_and_file_list(tmp_path: Path) -> None:
    skill = write_skill(tmp_path, "notes", files=("scripts/run.py",))
    text = handle_load_skill([skill], {"name": "notes"})
    assert text.startswith("<skill>\n<name>notes</name>")
    assert "- scripts/run.py" in text


@pytest.mark.parametrize("arguments", [{"name": "relese-notes"}, {"name": ""}, {}, {"name": 3}, "nothing"])
def test_tool_handler_answers_bad_names_with_text_not_tracebacks(tmp_path: Path, arguments: object) -> None:
    skills = [write_skill(tmp_path, "release-notes")]
    text = handle_load_skill(skills, arguments)  # type: ignore[arg-type]
    assert text.startswith("Error:")
    if arguments == {"name": "relese-notes"}:
        assert "Closest matches: release-notes" in text
        assert "Available skills: release-notes" in text


def test_tool_handler_reports_a_skill_file_that_vanished(tmp_path: Path) -> None:
    skill = write_skill(tmp_path, "gone")
    skill.path.unlink()
    text = handle_load_skill([skill], "gone")
    assert text.startswith("Error: cannot read")

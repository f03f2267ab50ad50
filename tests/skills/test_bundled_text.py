"""The markdown a skill bundles, read for the search index: what is read and what never is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillshelf.skills.bundled_text import bundled_prose, bundled_stamp


def _skill_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "pdf"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: pdf\ndescription: PDFs.\n---\nShort.\n", encoding="utf-8")
    return folder


def test_the_bundled_markdown_is_read_references_first_without_its_headings(tmp_path: Path) -> None:
    folder = _skill_folder(tmp_path)
    forms = folder / "references" / "forms.md"
    forms.write_text("# Forms\n\nFill   the\nfields.\n## Flatten\n", encoding="utf-8")
    (folder / "AAA.md").write_text("Root notes.", encoding="utf-8")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "fill.py").write_text("print('not markdown')", encoding="utf-8")
    assert bundled_prose(folder, limit=1000).text == "Fill the fields. Root notes."
    assert bundled_prose(folder, limit=8).text == "Fill the"
    assert bundled_prose(folder, limit=0).text == ""


def test_a_nested_skill_and_hidden_folders_are_not_read(tmp_path: Path) -> None:
    folder = _skill_folder(tmp_path)
    (folder / "inner").mkdir()
    (folder / "inner" / "SKILL.md").write_text("---\nname: inner\ndescription: x\n---\n", encoding="utf-8")
    (folder / "inner" / "notes.md").write_text("INNER-WORDS", encoding="utf-8")
    (folder / ".git").mkdir()
    (folder / ".git" / "notes.md").write_text("GIT-WORDS", encoding="utf-8")
    assert bundled_prose(folder, limit=1000).text == ""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_links_out_of_the_folder_hard_links_and_fifos_are_never_read(tmp_path: Path) -> None:
    folder = _skill_folder(tmp_path)
    secret = tmp_path / "secret.md"
    secret.write_text("SECRET-WORDS", encoding="utf-8")
    (folder / "references" / "link.md").symlink_to(secret)
    (folder / "references" / "up").symlink_to(tmp_path)
    os.link(secret, folder / "references" / "hard.md")
    os.mkfifo(folder / "references" / "pipe.md")
    (folder / "references" / "loop.md").symlink_to(folder / "references" / "loop.md")
    (folder / "references" / "bytes.md").write_bytes(b"caf\xe9 ok")
    assert bundled_prose(folder, limit=1000).text == "caf\ufffd ok"


def test_words_that_look_like_keys_or_hashes_are_left_out(tmp_path: Path) -> None:
    folder = _skill_folder(tmp_path)
    key = "sk-proj-" + "a1B2c3D4" * 4
    text = f"Set OPENAI_API_KEY={key} then run it; commit 0123456789abcdef0123456789abcdef01234567 fixed it."
    (folder / "references" / "setup.md").write_text(text, encoding="utf-8")
    assert bundled_prose(folder, limit=1000).text == "Set then run it; commit fixed it."


def test_a_missing_folder_has_no_prose(tmp_path: Path) -> None:
    assert bundled_prose(tmp_path / "gone", limit=100).text == ""


def test_the_files_read_are_named_with_a_stamp_that_changes_with_them(tmp_path: Path) -> None:
    folder = _skill_folder(tmp_path)
    forms = folder / "references" / "forms.md"
    forms.write_text("Fill the fields.", encoding="utf-8")
    (folder / "references" / "ctrl\x01.md").write_text("CONTROL-WORDS", encoding="utf-8")
    read = bundled_prose(folder, limit=1000)
    assert read.files == ("references/forms.md",)
    assert read.stamp == bundled_stamp(folder, read.watched)
    forms.write_text("Fill the form fields.", encoding="utf-8")
    assert bundled_stamp(folder, read.watched) != read.stamp


def test_a_file_added_beside_one_read_or_a_folder_added_changes_the_stamp(tmp_path: Path) -> None:
    folder = _skill_folder(tmp_path)
    (folder / "references" / "forms.md").write_text("Fill the fields.", encoding="utf-8")
    read = bundled_prose(folder, limit=1000)
    before = read.stamp
    os.utime(folder / "references", ns=(1, 1))
    assert bundled_stamp(folder, read.files) != before
    empty = _skill_folder(tmp_path / "other")
    (empty / "references").rmdir()
    nothing = bundled_prose(empty, limit=1000)
    assert nothing.files == ()
    os.utime(empty, ns=(1, 1))
    assert bundled_stamp(empty, ()) != nothing.stamp


def test_a_folder_that_holds_no_file_read_is_watched_too(tmp_path: Path) -> None:
    folder = _skill_folder(tmp_path)
    (folder / "references" / "forms.md").write_text("Fill the fields.", encoding="utf-8")
    (folder / "scripts" / "deep").mkdir(parents=True)
    (folder / "scripts" / "deep" / "run.py").write_text("print()", encoding="utf-8")
    read = bundled_prose(folder, limit=1000)
    assert read.files == ("references/forms.md",) and read.folders == ("scripts/deep/",)
    assert bundled_stamp(folder, read.watched) == read.stamp
    (folder / "scripts" / "deep" / "notes.md").write_text("Flatten forms.", encoding="utf-8")
    assert bundled_stamp(folder, read.watched) != read.stamp

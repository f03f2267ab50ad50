"""The files a skill bundles: the count of those past the listing cap is never understated."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.skills import bundled_listing as listing_module
from skillshelf.skills.bundled_listing import bundled_listing, list_bundled_files
from skillshelf.skills.load import handle_load_skill, load_skill
from skillshelf.skills.model import RootOrigin, Scope, Skill

TEXT = "---\nname: {name}\ndescription: Shapes release notes.\n---\nDo the thing.\n"


def many_files(root: Path, name: str, count: int) -> Skill:
    folder = root / name
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text(TEXT.format(name=name), encoding="utf-8")
    for i in range(count):
        (folder / "references" / f"r{i:04}.md").write_text("x", encoding="utf-8")
    return Skill(
        name=name,
        description="Shapes release notes.",
        path=folder / "SKILL.md",
        root=root,
        scope=Scope.USER,
        origin=RootOrigin.EXTRA,
    )


@pytest.fixture
def small_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listing_module, "MAX_WALK_ENTRIES", 20)
    monkeypatch.setattr(listing_module, "MAX_COUNT_ENTRIES", 60)


def test_files_past_the_walk_bound_are_still_counted(tmp_path: Path, small_bounds: None) -> None:
    skill = many_files(tmp_path, "big", 50)
    files, more = list_bundled_files(skill.folder, limit=5)
    assert files == tuple(f"references/r{i:04}.md" for i in range(5))
    assert more == 45
    assert bundled_listing(skill.folder, limit=5).more_at_least is False


def test_a_count_the_entry_bound_stopped_is_said_to_be_a_lower_bound(
    tmp_path: Path, small_bounds: None
) -> None:
    skill = many_files(tmp_path, "huge", 200)
    listing = bundled_listing(skill.folder, limit=5)
    assert listing.more_at_least is True
    assert listing.more == 60 - 2 - 5  # entries looked at, less "references" and SKILL.md, less those listed
    loaded = load_skill([skill], "huge", max_files=5)
    assert (loaded.more_files, loaded.more_files_at_least) == (53, True)
    assert loaded.more_files_text == "at least 53"
    assert loaded.to_dict()["more_files_at_least"] is True
    text = handle_load_skill([skill], {"name": "huge"})  # 18 listed of the 20 entries checked
    assert text.endswith("- references/r0017.md\n- ... and at least 40 more file(s)")


def test_an_exact_count_reads_as_a_plain_number(tmp_path: Path) -> None:
    skill = many_files(tmp_path, "some", 55)
    loaded = load_skill([skill], "some")
    assert (loaded.more_files, loaded.more_files_text, loaded.more_files_at_least) == (5, "5", False)
    assert handle_load_skill([skill], {"name": "some"}).endswith("- ... and 5 more file(s)")


def test_a_file_a_read_cannot_open_is_not_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    skill = many_files(tmp_path, "odd", 3)
    locked = str(skill.folder / "references" / "r0001.md")
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda path, mode, **kw: os.fspath(path) != locked and real_access(path, mode, **kw)
    )
    files, more = list_bundled_files(skill.folder, limit=1)
    assert files == ("references/r0000.md",) and more == 2  # the rest is counted, not opened
    assert list_bundled_files(skill.folder)[0] == ("references/r0000.md", "references/r0002.md")


def test_a_binary_file_over_the_read_cap_is_not_listed_and_a_text_one_is(tmp_path: Path) -> None:
    skill = many_files(tmp_path, "sized", 1)
    folder = skill.folder
    (folder / "assets").mkdir()
    (folder / "assets" / "big.bin").write_bytes(b"\x89PNG\x00" * 80_000)  # 400 KB
    (folder / "assets" / "latin1.txt").write_bytes("é".encode("latin-1") * 300_000)  # binary, 300 KB
    (folder / "assets" / "small.bin").write_bytes(b"\x00\x01")
    (folder / "assets" / "big.txt").write_text("line\n" * 80_000, encoding="utf-8")
    files = list_bundled_files(folder)[0]
    assert files == ("references/r0000.md", "assets/big.txt", "assets/small.bin")
    assert "assets/big.bin" in list_bundled_files(folder, max_file_bytes=500_000)[0]
    loaded = load_skill([skill], "sized", max_bytes=500_000).files
    assert loaded == (
        "references/r0000.md",
        "assets/big.bin",
        "assets/big.txt",
        "assets/latin1.txt",
        "assets/small.bin",
    )

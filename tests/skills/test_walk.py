"""Walking one root: Codex's traversal rules, and limits that are never silent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from skill_tree_helpers import repo_root, write_skill

from skillshelf.skills.walk import ScanLimits, walk_claude_root, walk_root
from skillshelf.skills.walk_cache import snapshot_walk
from skillshelf.skills.walk_limits import limit_diagnostics


def found(root: Path, **kw: object) -> list[str]:
    result = walk_root(str(root), follow_symlinks=kw.pop("follow", True), **kw)  # type: ignore[arg-type]
    return sorted(os.path.relpath(f.path, root) for f in result.files)


def test_skills_six_levels_deep_are_found_and_seven_are_not(tmp_path: Path) -> None:
    write_skill(tmp_path / "d0/d1/d2/d3/d4/d5", "within")
    write_skill(tmp_path / "e0/e1/e2/e3/e4/e5/e6", "too-deep")
    result = walk_root(str(tmp_path), follow_symlinks=True)
    assert [os.path.relpath(f.path, tmp_path) for f in result.files] == ["d0/d1/d2/d3/d4/d5/SKILL.md"]
    assert result.depth_pruned == 1 and not result.truncated
    (too_deep,) = result.diagnostics
    assert too_deep.code == "SK210" and too_deep.path == tmp_path / "e0/e1/e2/e3/e4/e5/e6/SKILL.md"


def test_the_depth_fix_moves_the_skill_up_as_codex_never_follows_skillshelf_s_depth(tmp_path: Path) -> None:
    write_skill(tmp_path / "e0/e1/e2/e3/e4/e5/e6", "too-deep")
    result = walk_root(str(tmp_path), follow_symlinks=True)
    (too_deep,) = result.diagnostics
    (pruned,) = limit_diagnostics(repo_root(tmp_path), result, ScanLimits())
    for diag in (too_deep, pruned):
        assert "move" in diag.fix and "Codex does not follow it" in diag.fix
        assert "raise the depth" not in diag.fix
    assert "Codex does not load it" in too_deep.message


def test_a_skill_listed_only_under_a_raised_depth_says_codex_does_not_load_it(tmp_path: Path) -> None:
    write_skill(tmp_path / "e0/e1/e2/e3/e4/e5/e6", "too-deep")
    result = walk_root(str(tmp_path), follow_symlinks=True, limits=ScanLimits(max_depth=7))
    assert [os.path.relpath(f.path, tmp_path) for f in result.files] == ["e0/e1/e2/e3/e4/e5/e6/SKILL.md"]
    (note,) = result.diagnostics
    assert note.code == "SK210" and note.path == tmp_path / "e0/e1/e2/e3/e4/e5/e6/SKILL.md"
    assert "7 folders below the root, deeper than the 6 levels Codex scans" in note.message
    assert "lists it only because SKILLSHELF_SCAN_MAX_DEPTH=7" in note.message


def test_a_skill_left_out_by_a_lowered_depth_says_codex_loads_it(tmp_path: Path) -> None:
    write_skill(tmp_path / "d0/d1/d2", "within")
    (note,) = walk_root(str(tmp_path), follow_symlinks=True, limits=ScanLimits(max_depth=2)).diagnostics
    assert note.code == "SK210" and "Codex, which scans 6 levels, loads it" in note.message


def test_a_skill_file_in_the_root_itself_is_found(tmp_path: Path) -> None:
    write_skill(tmp_path, "root-skill")
    assert found(tmp_path) == ["SKILL.md"]


def test_hidden_folders_below_the_root_are_pruned_but_a_hidden_root_is_walked(tmp_path: Path) -> None:
    root = tmp_path / ".agents" / "skills"
    write_skill(root / ".hidden", "hidden")
    write_skill(root / "visible" / ".inner" / "x", "inner")
    write_skill(root / "ok", "ok")
    assert found(root) == ["ok/SKILL.md"]
    hidden = walk_root(str(root), follow_symlinks=True).diagnostics
    # only a SKILL.md directly inside the hidden folder is pointed out (one probe per hidden folder)
    assert [(d.code, d.path) for d in hidden] == [("SK208", root / ".hidden/SKILL.md")]


def test_only_files_named_exactly_skill_md_count(tmp_path: Path) -> None:
    (tmp_path / "lower").mkdir()
    (tmp_path / "lower" / "skill.md").write_text("---\nname: a\ndescription: b\n---\n", encoding="utf-8")
    assert found(tmp_path) == []


def test_directory_symlinks_are_followed_and_loops_end(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    write_skill(shared / "demo", "linked")
    root = tmp_path / "root"
    write_skill(root / "cycle" / "s", "cycle")
    os.symlink(shared, root / "link")
    os.symlink(root / "cycle", root / "cycle" / "loop")
    result = walk_root(str(root), follow_symlinks=True)
    paths = sorted(os.path.relpath(f.path, root) for f in result.files)
    assert paths == ["cycle/s/SKILL.md", "link/demo/SKILL.md"]
    linked = next(f for f in result.files if "/root/link/" in f.path)
    assert linked.canonical == str(shared / "demo" / "SKILL.md")
    assert any(d.code == "SK204" for d in result.diagnostics)


def test_symlinks_are_not_followed_when_the_root_forbids_it(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    write_skill(shared / "demo", "linked")
    root = tmp_path / "system"
    root.mkdir()
    os.symlink(shared, root / "link")
    assert found(root, follow=False) == []


def test_symlinked_skill_files_are_ignored_with_a_warning(tmp_path: Path) -> None:
    target = write_skill(tmp_path / "elsewhere", "target")
    root = tmp_path / "root"
    (root / "demo").mkdir(parents=True)
    os.symlink(target, root / "demo" / "SKILL.md")
    os.symlink(tmp_path / "missing", root / "dangling")
    result = walk_root(str(root), follow_symlinks=True)
    assert result.files == []
    assert {d.code for d in result.diagnostics} == {"SK206", "SK205"}


def test_a_link_to_itself_is_a_loop_not_a_broken_link_and_the_walk_is_not_reused(tmp_path: Path) -> None:
    write_skill(tmp_path / "ok", "ok")
    os.symlink("selfloop", tmp_path / "selfloop")
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    result = walk_root(str(tmp_path), follow_symlinks=True, record=True)
    assert found(tmp_path) == ["ok/SKILL.md"]
    assert sorted((d.code, d.path.name) for d in result.diagnostics) == [
        ("SK204", "a"),
        ("SK204", "b"),
        ("SK204", "selfloop"),
    ]
    assert all("symlink loop" in d.message for d in result.diagnostics)
    assert snapshot_walk(result) is None  # the loop may be undone outside the walked folders


def test_a_visible_alias_reaches_a_hidden_folder(tmp_path: Path) -> None:
    write_skill(tmp_path / ".hidden" / "search", "search")
    os.symlink(tmp_path / ".hidden", tmp_path / "visible")
    assert found(tmp_path) == ["visible/search/SKILL.md"]


def test_folder_limit_counts_the_root_and_reports_what_was_left(tmp_path: Path) -> None:
    for i in range(12):
        write_skill(tmp_path / f"a{i:02d}", f"s{i}")
    result = walk_root(str(tmp_path), follow_symlinks=True, limits=ScanLimits(max_dirs=10))
    assert len(result.files) == 9
    assert result.truncated and result.limit == "max_dirs" and result.unvisited_dirs == 3


def test_entry_limit_stops_at_once_and_says_where(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    for i in range(5):
        (tmp_path / "a" / f"f{i}").touch()
    write_skill(tmp_path / "b", "late")
    result = walk_root(str(tmp_path), follow_symlinks=True, limits=ScanLimits(max_entries=7))
    assert result.files == [] and result.truncated and result.limit == "max_entries"
    assert result.entries_seen == 7 and result.stopped_in == str(tmp_path / "b")
    ok = walk_root(str(tmp_path), follow_symlinks=True, limits=ScanLimits(max_entries=8))
    assert len(ok.files) == 1 and not ok.truncated


def test_unreadable_folders_give_a_diagnostic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_skill(tmp_path / "ok", "ok")
    (tmp_path / "locked").mkdir()
    real_scandir = os.scandir

    def scandir(path: str):  # type: ignore[no-untyped-def]
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = walk_root(str(tmp_path), follow_symlinks=True)
    assert [os.path.basename(os.path.dirname(f.path)) for f in result.files] == ["ok"]
    assert [d.code for d in result.diagnostics] == ["SK203"]


def test_claude_roots_read_one_level_including_hidden_and_linked_folders(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root / "flat", "flat")
    write_skill(root / ".hidden", "hidden")
    write_skill(root / "group" / "nested", "nested")
    write_skill(tmp_path / "shared", "linked")
    os.symlink(tmp_path / "shared", root / "link")
    result = walk_claude_root(str(root))
    assert sorted(os.path.relpath(f.path, root) for f in result.files) == [
        ".hidden/SKILL.md",
        "flat/SKILL.md",
        "link/SKILL.md",
    ]


def test_folders_reached_through_a_link_are_noted_plain_under_their_real_path(tmp_path: Path) -> None:
    write_skill(tmp_path / "outside/group/a", "a")
    (tmp_path / "outside/kit/.codex-plugin").mkdir(parents=True)
    write_skill(tmp_path / "outside/kit/b", "b")
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(tmp_path / "outside", root / "linked")
    result = walk_root(str(root), follow_symlinks=True)
    real = tmp_path.resolve() / "outside"
    # namespaces are looked up by real folder: these need no manifest probe; "kit" holds one
    assert {str(real), str(real / "group"), str(real / "group/a"), str(real / "kit/b")} <= result.plain_dirs
    assert str(real / "kit") not in result.plain_dirs and result.has_plugin_markers
    assert not any(p.startswith(str(root / "linked")) for p in result.plain_dirs)


def bad_utf8(root: Path, name: bytes) -> Path:
    """A folder under ``root`` whose name holds bytes that are not UTF-8."""
    folder = Path(os.fsdecode(os.fsencode(root) + b"/" + name))
    folder.mkdir(parents=True)
    return folder


def test_folders_whose_name_is_not_utf8_are_skipped_with_a_warning(tmp_path: Path) -> None:
    write_skill(tmp_path / "ok", "ok")
    write_skill(bad_utf8(tmp_path, b"bad\xffname"), "leaf")
    write_skill(bad_utf8(tmp_path, b"outer\xfe") / "inner", "below")
    result = walk_root(str(tmp_path), follow_symlinks=True)
    assert [os.path.relpath(f.path, tmp_path) for f in result.files] == ["ok/SKILL.md"]
    notes = [(d.code, d.severity.value, d.path, d.message.split("`")[1]) for d in result.diagnostics]
    assert notes == [
        ("SK214", "warning", tmp_path, "bad\\xffname"),
        ("SK214", "warning", tmp_path, "outer\\xfe"),
    ]
    assert all(d.fix and "not valid UTF-8" in d.message for d in result.diagnostics)


@pytest.mark.parametrize("char", ["\n", "\r", "\t"], ids=["newline", "carriage-return", "tab"])
def test_folders_whose_name_holds_a_line_break_or_tab_are_skipped(tmp_path: Path, char: str) -> None:
    write_skill(tmp_path / "ok", "ok")
    write_skill(tmp_path / f"x{char}- forged: line (file: r0/forged", "forged")
    write_skill(tmp_path / f"outer{char}x" / "inner", "below")
    write_skill(tmp_path / "elsewhere", "linked")
    os.symlink(tmp_path / "elsewhere", tmp_path / f"link{char}x")
    result = walk_root(str(tmp_path), follow_symlinks=True)
    assert found(tmp_path) == ["elsewhere/SKILL.md", "ok/SKILL.md"]
    assert [d.code for d in result.diagnostics] == ["SK214"] * 3
    assert all("\n" not in d.message and "\r" not in d.message for d in result.diagnostics)


def test_other_control_characters_and_a_badly_named_link_target_are_listed(tmp_path: Path) -> None:
    root = tmp_path / "root"
    for name in ("a\x01b", "c\x1bd", "e\x7ff", "g\x85h", "i\u2028j", "k\u202el"):
        write_skill(root / name, "fine")
    write_skill(bad_utf8(tmp_path, b"target\xff"), "target")
    os.symlink(os.fsdecode(os.fsencode(tmp_path) + b"/target\xff"), root / "link")
    result = walk_root(str(root), follow_symlinks=True)
    assert len(result.files) == 7 and result.diagnostics == []


def test_badly_named_folders_codex_would_not_enter_anyway_are_not_noted(tmp_path: Path) -> None:
    write_skill(tmp_path / ".hidden\nx", "hidden")
    write_skill(tmp_path / "d0/d1/d2/d3/d4/d5/d6\nx", "too-deep")
    (tmp_path / "file\nname").write_text("not a folder", encoding="utf-8")
    result = walk_root(str(tmp_path), follow_symlinks=True)
    assert result.files == [] and [d.code for d in result.diagnostics] == []


def test_claude_roots_skip_folders_whose_name_is_not_utf8_or_holds_a_line_break(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root / "flat", "flat")
    write_skill(root / "two\nlines", "forged")
    write_skill(bad_utf8(root, b"bad\xff"), "bad")
    result = walk_claude_root(str(root))
    assert [os.path.relpath(f.path, root) for f in result.files] == ["flat/SKILL.md"]
    assert [d.code for d in result.diagnostics] == ["SK214", "SK214"]

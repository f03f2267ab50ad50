"""What skillshelf says about Codex AGENTS.md problems: config values Codex refuses to start
with, a symbolic link loop among the instruction names, and which setting capped a cut file
(the behaviour itself is checked against Codex in test_agents_md_edges_oracle.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillshelf.env import Env
from skillshelf.instructions import load_instructions
from skillshelf.instructions.files import link_loops, skipped_entry_diagnostic


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    _write(root / "AGENTS.md", "Run the tests before every commit.\n")
    return root


def _env(cwd: Path, tmp_path: Path) -> Env:
    return Env.for_test(cwd=cwd, home=tmp_path / "home", codex_home=tmp_path / "home" / ".codex")


def _codes(repo: Path, tmp_path: Path, max_bytes: int | None = None) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for d in load_instructions(_env(repo, tmp_path), profile="codex", max_bytes=max_bytes).diagnostics:
        found.setdefault(d.code, []).append(f"{d.field}|{d.message}|{d.fix}")
    return found


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ("project_doc_max_bytes = -5", "project_doc_max_bytes"),
        ('project_doc_max_bytes = "big"', "project_doc_max_bytes"),
        ("project_doc_max_bytes = true", "project_doc_max_bytes"),
        ("project_doc_max_bytes = 99999999999999999999", "project_doc_max_bytes"),
        ('project_doc_fallback_filenames = "NOTES.md"', "project_doc_fallback_filenames"),
        ('project_root_markers = ".git"', "project_root_markers"),
        ('profile = "p"', "profile"),
    ],
)
def test_a_user_config_value_codex_refuses_to_start_with_is_a_warning_naming_it(
    repo: Path, tmp_path: Path, config: str, field: str
) -> None:
    _write(tmp_path / "home" / ".codex" / "config.toml", config + "\n")
    [problem] = _codes(repo, tmp_path)["IN109"]
    named, message, fix = problem.split("|")
    assert named == field and "Codex refuses to start" in message and fix


def test_values_codex_accepts_give_no_warning(repo: Path, tmp_path: Path) -> None:
    _write(
        tmp_path / "home" / ".codex" / "config.toml",
        'project_doc_max_bytes = 0\nproject_doc_fallback_filenames = []\nproject_root_markers = [".git"]\n',
    )
    assert not {"IN104", "IN109"} & set(_codes(repo, tmp_path))


def test_a_trusted_projects_bad_value_is_reported_and_an_untrusted_ones_is_not(
    repo: Path, tmp_path: Path
) -> None:
    _write(repo / ".codex" / "config.toml", 'project_doc_max_bytes = -1\nprofile = "p"\n')
    config = tmp_path / "home" / ".codex" / "config.toml"
    _write(config, f'[projects."{repo}"]\ntrust_level = "untrusted"\n')
    assert "IN109" not in _codes(repo, tmp_path)
    _write(config, f'[projects."{repo}"]\ntrust_level = "trusted"\n')
    # a project's profile key is not the legacy setting Codex refuses: only the value counts
    assert [p.split("|")[0] for p in _codes(repo, tmp_path)["IN109"]] == ["project_doc_max_bytes"]


def test_unreadable_user_config_says_codex_refuses_to_start(repo: Path, tmp_path: Path) -> None:
    _write(tmp_path / "home" / ".codex" / "config.toml", "x = [\n")
    [problem] = _codes(repo, tmp_path)["IN104"]
    assert "refuses to start" in problem and "using the defaults" not in problem


def test_a_cut_names_skillshelfs_own_cap_when_it_is_the_one_in_force(repo: Path, tmp_path: Path) -> None:
    [ours] = _codes(repo, tmp_path, max_bytes=5)["IN105"]
    assert "skillshelf's max_bytes (5)" in ours and "under [instructions] in skillshelf's config.toml" in ours
    assert "Codex's config.toml" not in ours
    _write(tmp_path / "home" / ".codex" / "config.toml", "project_doc_max_bytes = 5\n")
    [codexs] = _codes(repo, tmp_path)["IN105"]
    assert (
        "project_doc_max_bytes (5)" in codexs
        and "raise project_doc_max_bytes in Codex's config.toml" in codexs
    )


def test_a_link_loop_named_agents_md_leaves_out_every_project_file_and_says_so(
    repo: Path, tmp_path: Path
) -> None:
    sub = repo / "sub"
    sub.mkdir()
    (sub / "a").symlink_to("b")
    (sub / "b").symlink_to("a")
    (sub / "AGENTS.md").symlink_to("a")
    result = load_instructions(_env(sub, tmp_path), profile="codex")
    assert result.text == "" and not result.included
    [loop] = [d for d in result.diagnostics if d.code == "IN108"]
    assert loop.path == sub / "AGENTS.md" and "reads no project AGENTS.md" in loop.message
    assert "IN106" not in {d.code for d in result.diagnostics}


def test_a_link_loop_is_not_called_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    (tmp_path / "gone").symlink_to("missing")
    assert link_loops(tmp_path / "a") and not link_loops(tmp_path / "gone")
    looped, broken = skipped_entry_diagnostic(tmp_path / "a"), skipped_entry_diagnostic(tmp_path / "gone")
    assert looped is not None and "loops" in looped.message and "broken" not in looped.message
    assert broken is not None and "broken symbolic link" in broken.message


def test_the_untrusted_note_names_the_projects_entry_that_decides(repo: Path, tmp_path: Path) -> None:
    _write(tmp_path / "home" / ".codex" / "config.toml", f'[projects."{repo}"]\ntrust_level = "untrusted"\n')
    below = repo / "src"
    below.mkdir()
    (note,) = load_instructions(_env(below, tmp_path), profile="codex").diagnostics
    assert note.code == "IN107" and f'[projects."{repo}"]' in note.fix


def test_an_unreadable_project_file_leaves_out_every_project_file_and_says_so(
    repo: Path, tmp_path: Path
) -> None:
    sub = repo / "sub"
    sub.mkdir()
    (sub / "AGENTS.md").symlink_to("/proc/self/mem")  # opens, then fails to read (EIO)
    result = load_instructions(_env(sub, tmp_path), profile="codex")
    assert result.text == "" and not result.included
    assert [layer.reason for layer in result.layers] == [
        f"{sub / 'AGENTS.md'} cannot be read",
        "cannot be read",
    ]
    [unreadable] = [d for d in result.diagnostics if d.code == "IN101"]
    assert unreadable.path == sub / "AGENTS.md" and "reads no project AGENTS.md at all" in unreadable.message


@pytest.mark.parametrize(
    ("data", "invalid"),
    [(b"abc\xc3\xa9\n", False), (b"a\xffc\xc3\xa9\n", True)],
    ids=["valid-cut-in-a-character", "invalid-before-the-cut"],
)
def test_a_cut_inside_a_character_is_not_called_invalid_utf8(
    repo: Path, tmp_path: Path, data: bytes, invalid: bool
) -> None:
    (repo / "AGENTS.md").write_bytes(data)
    result = load_instructions(_env(repo, tmp_path), profile="codex", max_bytes=4)
    assert result.included[0].text.endswith("\ufffd")
    codes = {d.code for d in result.diagnostics}
    assert "IN105" in codes and ("IN102" in codes) is invalid


def test_a_link_to_a_folder_or_a_fifo_is_not_called_broken(tmp_path: Path) -> None:
    (tmp_path / "realdir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "to-dir").symlink_to("realdir")
    (tmp_path / "to-fifo").symlink_to("fifo")
    to_dir, to_fifo = (
        skipped_entry_diagnostic(tmp_path / "to-dir"),
        skipped_entry_diagnostic(tmp_path / "to-fifo"),
    )
    assert to_dir is not None and "symbolic link to a folder" in to_dir.message
    assert to_fifo is not None and "symbolic link to a FIFO" in to_fifo.message
    assert all("broken" not in d.message for d in (to_dir, to_fifo))

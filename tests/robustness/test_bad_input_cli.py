"""Bad input on the command line: every command answers with a code and a fix, never a traceback.

Each test feeds one kind of bad input (broken YAML, binary or huge files, FIFOs, symlink loops,
missing folders, hostile paths and names, broken config, hostile archives...) to the real entry
point with SKILLSHELF_DEBUG unset, and checks the exit code (1 or 2 for failures), that the
message carries a code and a ``fix:`` hint, that the catch-all "internal error" never shows, and
that no data is lost. No test here is marked ``xfail``: a known bug would be, and
``xfail_strict`` (pyproject) makes the mark fail once the bug is fixed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from bad_input_helpers import (
    BROKEN_SKILLS,
    assert_no_crash,
    assert_reported,
    run_cli,
    run_process,
    sparse_skill,
    write_bytes_skill,
    write_skill,
)

# -- broken SKILL.md files -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(BROKEN_SKILLS))
def test_validate_reports_each_broken_skill_file_with_its_code(work: Path, tmp_path: Path, kind: str) -> None:
    data, code = BROKEN_SKILLS[kind]
    write_bytes_skill(tmp_path / "skills", kind, data)
    result = run_cli(["validate", str(tmp_path / "skills" / kind)], cwd=work)
    assert_reported(result, exit_codes=(1,), code=code)


def test_validate_refuses_a_skill_file_larger_than_codex_lists(work: Path, tmp_path: Path) -> None:
    sparse_skill(tmp_path / "skills" / "huge" / "SKILL.md", 10 * 1024**3)
    result = run_cli(["validate", str(tmp_path / "skills" / "huge")], cwd=work)
    assert_reported(result, exit_codes=(1,), code="SK113")


def test_list_keeps_good_skills_and_reports_every_broken_one(work: Path, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for kind, (data, _) in BROKEN_SKILLS.items():
        write_bytes_skill(root, kind, data)
    sparse_skill(root / "huge" / "SKILL.md", 10 * 1024**3)
    write_bytes_skill(
        root, "crlf", b"---\r\nname: crlf\r\ndescription: written on Windows\r\n---\r\nbody\r\n"
    )
    write_skill(root / "good", "good")
    result = run_cli(["list", "--json", "--no-builtin", "--no-cache", "--root", str(root)], cwd=work)
    assert_no_crash(result)
    assert result.code == 0
    assert sorted(s["name"] for s in json.loads(result.out)) == ["crlf", "good"]
    for code in {"SK104", "SK102", "SK112", "SK113", "SK114", "SK115"}:
        assert code in result.codes, code
    assert result.err.count("fix:") >= 8


def test_context_and_catalog_survive_a_root_full_of_broken_skills(work: Path, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for kind, (data, _) in BROKEN_SKILLS.items():
        write_bytes_skill(root, kind, data)
    write_skill(root / "good", "good")
    for args in (["context", "$good and $broken-yaml", "--no-builtin"], ["catalog", "--no-builtin"]):
        result = run_cli([*args, "--root", str(root)], cwd=work)
        assert_no_crash(result)
        assert result.code == 0 and "good" in result.out
        assert "skillshelf validate" in result.err  # the way to the details


# -- paths that are not plain files or folders ------------------------------------------------------


def test_validate_a_dangling_skill_symlink_is_an_error_not_a_silent_skip(work: Path, tmp_path: Path) -> None:
    folder = tmp_path / "dangling"
    folder.mkdir()
    (folder / "SKILL.md").symlink_to(tmp_path / "gone" / "SKILL.md")
    for target in (folder, folder / "SKILL.md"):
        assert_reported(run_cli(["validate", str(target)], cwd=work), exit_codes=(1,), code="SK350")


def test_validate_a_fifo_named_skill_md_says_it_is_not_a_file(work: Path, tmp_path: Path) -> None:
    folder = tmp_path / "piped"
    folder.mkdir()
    os.mkfifo(folder / "SKILL.md")
    for target in (folder, folder / "SKILL.md"):
        result = run_cli(["validate", str(target)], cwd=work)
        assert_reported(result, exit_codes=(1,), code="SK351")
        assert "FIFO" in result.out


def test_validate_checks_the_good_skill_beside_a_fifo(work: Path, tmp_path: Path) -> None:
    write_skill(tmp_path / "skills" / "good", "good")
    (tmp_path / "skills" / "piped").mkdir()
    os.mkfifo(tmp_path / "skills" / "piped" / "SKILL.md")
    code, out, _ = run_process(["validate", str(tmp_path / "skills")], cwd=work, timeout=20)
    assert code == 1 and b"SK351" in out and b"2 skill file(s) checked: 1 Codex loads" in out


def test_validate_a_device_or_a_folder_named_skill_md_is_not_a_skill(work: Path, tmp_path: Path) -> None:
    assert_reported(run_cli(["validate", os.devnull], cwd=work), exit_codes=(1,), code="SK351")
    (tmp_path / "odd" / "SKILL.md").mkdir(parents=True)
    assert_reported(
        run_cli(["validate", str(tmp_path / "odd" / "SKILL.md")], cwd=work), exit_codes=(1,), code="SK351"
    )


def test_validate_a_missing_path_or_a_plain_file(work: Path, tmp_path: Path) -> None:
    assert_reported(run_cli(["validate", str(tmp_path / "missing")], cwd=work), exit_codes=(1,), code="SK350")
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    assert_reported(
        run_cli(["validate", str(tmp_path / "notes.txt")], cwd=work), exit_codes=(1,), code="SK351"
    )


@pytest.mark.parametrize("fifo", ["piped/SKILL.md", "good/agents/openai.yaml"])
def test_list_does_not_hang_on_a_fifo_in_a_skill(work: Path, tmp_path: Path, fifo: str) -> None:
    root = tmp_path / "skills"
    write_skill(root / "good", "good")
    write_skill(root / "piped", "piped")
    (root / fifo).unlink(missing_ok=True)
    (root / fifo).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(root / fifo)
    code, out, err = run_process(
        ["list", "--no-builtin", "--no-cache", "--root", str(root)], cwd=work, timeout=6
    )
    assert code == 0, "skillshelf list hung on the FIFO"
    assert b"good" in out and b"SK1" in err


def test_symlink_loops_between_skill_folders_end_and_list_each_skill_once(work: Path, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root / "alpha", "alpha")
    write_skill(root / "beta", "beta")
    (root / "alpha" / "to-beta").symlink_to(root / "beta")
    (root / "beta" / "to-alpha").symlink_to(root / "alpha")
    (root / "alpha" / "self").symlink_to(root / "alpha" / "self")
    result = run_cli(["list", "--json", "--no-builtin", "--no-cache", "--root", str(root)], cwd=work)
    assert_no_crash(result)
    assert result.code == 0
    assert sorted(s["name"] for s in json.loads(result.out)) == ["alpha", "beta"]
    checked = run_cli(["validate", str(root)], cwd=work)
    assert_no_crash(checked)
    assert checked.code == 0 and "2 skill file(s) checked" in checked.out


# -- --root ------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["list"], ["catalog"], ["context", "task"], ["load", "x"], ["deps"]])
def test_a_missing_root_is_a_usage_error_with_a_fix(work: Path, tmp_path: Path, command: list[str]) -> None:
    result = run_cli([*command, "--root", str(tmp_path / "no-such-folder")], cwd=work)
    assert_reported(result, exit_codes=(2,), code="SK202")


@pytest.mark.parametrize("shape", ["name too long", "symlink loop"])
def test_a_root_that_cannot_be_checked_is_a_usage_error_with_a_fix(
    work: Path, tmp_path: Path, shape: str
) -> None:
    if shape == "symlink loop":
        root = tmp_path / "loop"
        root.symlink_to(root)
    else:
        root = tmp_path / ("x" * 300)
    result = run_cli(["list", "--root", str(root)], cwd=work)
    assert_reported(result, exit_codes=(2,), code="SK202")
    assert ("loop of symbolic links" if shape == "symlink loop" else "too long") in result.err


def test_a_root_that_is_a_file_or_empty_is_a_usage_error(work: Path, tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("x\n", encoding="utf-8")
    assert_reported(
        run_cli(["list", "--root", str(tmp_path / "file.txt")], cwd=work), exit_codes=(2,), code="SK201"
    )
    assert_reported(run_cli(["list", "--root", ""], cwd=work), exit_codes=(2,), code="SK202")


def test_roots_with_spaces_newlines_and_unicode_work(work: Path, tmp_path: Path) -> None:
    root = tmp_path / "my skills\nand ünïcode"
    write_skill(root / "sp ace", "spaced")
    write_skill(root / "ünï", "unicode")
    result = run_cli(["list", "--json", "--no-builtin", "--root", str(root)], cwd=work)
    assert_no_crash(result)
    assert result.code == 0 and sorted(s["name"] for s in json.loads(result.out)) == ["spaced", "unicode"]
    assert run_cli(["validate", str(root)], cwd=work).code == 0


# -- hostile names, markup and escape sequences --------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["../../etc", "/etc/passwd", "a/b", "", " ", "x\ny", "good/../good", "x" * 5000]
)
def test_load_of_odd_names_is_not_found_with_a_fix(work: Path, tmp_path: Path, name: str) -> None:
    write_skill(tmp_path / "skills" / "good", "good")
    result = run_cli(["load", name, "--no-builtin", "--root", str(tmp_path / "skills")], cwd=work)
    assert_reported(result, exit_codes=(1,), code="SK404")
    assert "root:" not in result.out  # nothing from /etc/passwd


def test_a_skill_named_like_a_path_fails_the_spec_and_loads_only_its_own_file(
    work: Path, tmp_path: Path
) -> None:
    root = tmp_path / "skills"
    write_skill(root / "dotted", "../../etc")
    assert_reported(
        run_cli(["validate", "--profile", "spec", str(root)], cwd=work), exit_codes=(1,), code="SK329"
    )
    loaded = run_cli(["load", "../../etc", "--no-builtin", "--root", str(root), "--json"], cwd=work)
    assert loaded.code == 0 and json.loads(loaded.out)["path"] == str(root / "dotted" / "SKILL.md")


def test_list_prints_rich_markup_and_escape_sequences_in_skills_literally(work: Path, tmp_path: Path) -> None:
    root = tmp_path / "skills[/]"
    write_skill(root / "markup", "markup", '"closes [/bold] and [/] and opens [red]"')
    write_skill(root / "escapes", "escapes", '"retitles \\e]0;pwned\\a and paints \\e[31mred"')
    write_skill(root / "bidi", "bidi", '"reads \\u202eexe.txt backwards"')
    result = run_cli(["list", "--no-builtin", "--root", str(root)], cwd=work)
    assert_no_crash(result)
    assert result.code == 0
    assert "[/bold]" in result.out and "\x1b" not in result.out and "\x07" not in result.out
    assert "\u202e" not in result.out and "reads \\u202eexe" in result.out


def test_escape_sequences_in_paths_never_reach_the_terminal(work: Path, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_bytes_skill(root, "evil\x1b]0;pwned\x07", BROKEN_SKILLS["broken-yaml"][0])
    write_skill(root / "fine\x1b[8m", "fine")
    for args in (
        ["validate", str(root)],
        ["list", "--no-builtin", "--root", str(root)],
        ["load", "nothing", "--no-builtin", "--root", str(root / "fine\x1b[8m")],
    ):
        result = run_cli(args, cwd=work)
        assert_no_crash(result)
        assert "SK104" in result.codes or "SK404" in result.codes
        assert "\x1b" not in result.text and "\x07" not in result.text, result.text


def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise AssertionError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_json_output_stays_strict_json_with_nan_and_inf_in_a_skill(work: Path, tmp_path: Path) -> None:
    folder = tmp_path / "skills" / "numbers"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: numbers\ndescription: odd numbers\nmetadata: {x: .nan, y: -.inf}\n---\nbody\n",
        encoding="utf-8",
    )
    for args in (["list", "--json"], ["load", "numbers", "--json"], ["context", "$numbers", "--json"]):
        result = run_cli([*args, "--no-builtin", "--root", str(tmp_path / "skills")], cwd=work)
        assert result.code == 0
        _strict_json(result.out)


def test_context_with_markup_in_the_task_and_in_paths(work: Path, tmp_path: Path) -> None:
    root = tmp_path / "skills[/]"
    write_skill(root / "markup", "markup", '"closes [/bold] here"')
    result = run_cli(["context", "fix the [/] bug in [bold]x", "--no-builtin", "--root", str(root)], cwd=work)
    assert_no_crash(result)
    assert result.code == 0 and "[/] bug" in result.out


def test_instructions_and_config_show_in_a_folder_named_with_markup(
    tmp_path: Path, isolated_home: Any
) -> None:
    project = tmp_path / "w[/]" / "p"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").write_text("Run the tests.\n", encoding="utf-8")
    for args in (["instructions"], ["config", "show"]):
        result = run_cli(args, cwd=project)
        assert_no_crash(result)
        assert result.code == 0


def test_search_prints_paths_with_markup(work: Path, tmp_path: Path) -> None:
    root = tmp_path / "skills[/]"
    write_skill(root / "release-notes", "release-notes")
    result = run_cli(["search", "release notes", "--no-builtin", "--root", str(root)], cwd=work)
    assert_no_crash(result)
    assert result.code == 0 and "release-notes" in result.out

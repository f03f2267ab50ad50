"""Bad input on the command line: every command answers with a code and a fix, never a traceback.

Each test feeds one kind of bad input (broken YAML, binary or huge files, FIFOs, symlink loops,
missing folders, hostile paths and names, broken config, hostile archives...) to the real entry
point with SKILLSHELF_DEBUG unset, and checks the exit code (1 or 2 for failures), that the
message carries a code and a ``fix:`` hint, that the catch-all "internal error" never shows, and
that no data is lost. Known bugs in areas still being written are ``xfail(strict=True)``.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Iterator
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


@pytest.fixture(autouse=True)
def _no_debug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKILLSHELF_DEBUG", raising=False)
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def work(tmp_path: Path, isolated_home: Any) -> Path:
    """An empty project folder (its own repository) to run commands from."""
    project = tmp_path / "work"
    (project / ".git").mkdir(parents=True)
    return project


def user_config(isolated_home: Any) -> Path:
    folder = Path(isolated_home.config) / "skillshelf"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "config.toml"


# -- broken SKILL.md files -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(BROKEN_SKILLS))
def test_validate_reports_each_broken_skill_file_with_its_code(work: Path, tmp_path: Path, kind: str) -> None:
    data, code = BROKEN_SKILLS[kind]
    write_bytes_skill(tmp_path / "skills", kind, data)
    result = run_cli(["validate", str(tmp_path / "skills" / kind)], cwd=work)
    assert_reported(result, exit_codes=(1,), code=code)


def test_validate_refuses_a_50_mb_skill_file_at_the_size_cap(work: Path, tmp_path: Path) -> None:
    sparse_skill(tmp_path / "skills" / "huge" / "SKILL.md", 50 * 1024 * 1024)
    result = run_cli(["validate", str(tmp_path / "skills" / "huge")], cwd=work)
    assert_reported(result, exit_codes=(1,), code="SK113")


def test_list_keeps_good_skills_and_reports_every_broken_one(work: Path, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for kind, (data, _) in BROKEN_SKILLS.items():
        write_bytes_skill(root, kind, data)
    sparse_skill(root / "huge" / "SKILL.md", 50 * 1024 * 1024)
    write_bytes_skill(root, "crlf", b"---\r\nname: crlf\r\ndescription: written on Windows\r\n---\r\nbody\r\n")
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
    assert code == 1 and b"SK351" in out and b"1 skill file(s) checked: 1 Codex loads" in out


def test_validate_a_device_or_a_folder_named_skill_md_is_not_a_skill(work: Path, tmp_path: Path) -> None:
    assert_reported(run_cli(["validate", os.devnull], cwd=work), exit_codes=(1,), code="SK351")
    (tmp_path / "odd" / "SKILL.md").mkdir(parents=True)
    assert_reported(run_cli(["validate", str(tmp_path / "odd" / "SKILL.md")], cwd=work), exit_codes=(1,), code="SK351")


def test_validate_a_missing_path_or_a_plain_file(work: Path, tmp_path: Path) -> None:
    assert_reported(run_cli(["validate", str(tmp_path / "missing")], cwd=work), exit_codes=(1,), code="SK350")
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    assert_reported(run_cli(["validate", str(tmp_path / "notes.txt")], cwd=work), exit_codes=(1,), code="SK351")


@pytest.mark.parametrize("fifo", ["piped/SKILL.md", "good/agents/openai.yaml"])
def test_list_does_not_hang_on_a_fifo_in_a_skill(work: Path, tmp_path: Path, fifo: str) -> None:
    root = tmp_path / "skills"
    write_skill(root / "good", "good")
    write_skill(root / "piped", "piped")
    (root / fifo).unlink(missing_ok=True)
    (root / fifo).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(root / fifo)
    code, out, err = run_process(["list", "--no-builtin", "--no-cache", "--root", str(root)], cwd=work, timeout=6)
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


def test_a_root_that_is_a_file_or_empty_is_a_usage_error(work: Path, tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("x\n", encoding="utf-8")
    assert_reported(run_cli(["list", "--root", str(tmp_path / "file.txt")], cwd=work), exit_codes=(2,), code="SK201")
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


@pytest.mark.parametrize("name", ["../../etc", "/etc/passwd", "a/b", "", " ", "x\ny", "good/../good", "x" * 5000])
def test_load_of_odd_names_is_not_found_with_a_fix(work: Path, tmp_path: Path, name: str) -> None:
    write_skill(tmp_path / "skills" / "good", "good")
    result = run_cli(["load", name, "--no-builtin", "--root", str(tmp_path / "skills")], cwd=work)
    assert_reported(result, exit_codes=(1,), code="SK404")
    assert "root:" not in result.out  # nothing from /etc/passwd


def test_a_skill_named_like_a_path_fails_the_spec_and_loads_only_its_own_file(work: Path, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root / "dotted", "../../etc")
    assert_reported(run_cli(["validate", "--profile", "spec", str(root)], cwd=work), exit_codes=(1,), code="SK329")
    loaded = run_cli(["load", "../../etc", "--no-builtin", "--root", str(root), "--json"], cwd=work)
    assert loaded.code == 0 and json.loads(loaded.out)["path"] == str(root / "dotted" / "SKILL.md")


def test_list_prints_rich_markup_and_escape_sequences_in_skills_literally(work: Path, tmp_path: Path) -> None:
    root = tmp_path / "skills[/]"
    write_skill(root / "markup", "markup", '"closes [/bold] and [/] and opens [red]"')
    write_skill(root / "escapes", "escapes", '"retitles \\e]0;pwned\\a and paints \\e[31mred"')
    result = run_cli(["list", "--no-builtin", "--root", str(root)], cwd=work)
    assert_no_crash(result)
    assert result.code == 0
    assert "[/bold]" in result.out and "\x1b" not in result.out and "\x07" not in result.out


def test_escape_sequences_in_paths_never_reach_the_terminal(work: Path, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_bytes_skill(root, "evil\x1b]0;pwned\x07", BROKEN_SKILLS["broken-yaml"][0])
    write_skill(root / "fine\x1b[8m", "fine")
    for args in (["validate", str(root)], ["list", "--no-builtin", "--root", str(root)],
                 ["load", "nothing", "--no-builtin", "--root", str(root / "fine\x1b[8m")]):
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
    (folder / "SKILL.md").write_text("---\nname: numbers\ndescription: odd numbers\nmetadata: {x: .nan, y: -.inf}\n"
                                     "---\nbody\n", encoding="utf-8")
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


def test_instructions_and_config_show_in_a_folder_named_with_markup(tmp_path: Path, isolated_home: Any) -> None:
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


# -- configuration -------------------------------------------------------------------------------


def test_a_config_syntax_error_is_reported_by_every_command_that_reads_it(work: Path, isolated_home: Any) -> None:
    user_config(isolated_home).write_text("[skills\nmax_context_tokens = 4000\n", encoding="utf-8")
    for args in (["config", "show"], ["list", "--no-builtin"], ["catalog", "--no-builtin"], ["context", "x", "--no-builtin"]):
        result = run_cli(args, cwd=work)
        assert_reported(result, exit_codes=(1,), code="CF100")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('[skills]\nmax_context_tokens = "lots"\n', "CF102"),
        ("[[skills.config]]\nname = \"x\"\nmode = \"sometimes\"\n", "CF104"),
        ("skills = 5\n", "CF102"),
        ("[skills]\nconfig = 5\n", "CF102"),
        ("nonsense_key = 1\n", "CF103"),
    ],
)
def test_wrong_types_and_unknown_modes_in_config_are_shown_with_a_fix(
    work: Path, isolated_home: Any, text: str, code: str
) -> None:
    user_config(isolated_home).write_text(text, encoding="utf-8")
    for args in (["config", "show"], ["context", "x", "--no-builtin"]):
        result = run_cli(args, cwd=work)
        assert_no_crash(result)
        assert code in result.codes and "fix:" in result.err, result.err


def test_huge_config_values_do_not_break_the_catalog(work: Path, isolated_home: Any, tmp_path: Path) -> None:
    write_skill(tmp_path / "skills" / "good", "good")
    user_config(isolated_home).write_text(f"[skills]\nmax_context_tokens = {10**25}\n", encoding="utf-8")
    for args in (["catalog", "--no-builtin", "--root", str(tmp_path / "skills")],
                 ["catalog", "--no-builtin", "--context-window", str(10**30), "--root", str(tmp_path / "skills")],
                 ["catalog", "--no-builtin", "--budget-chars", str(10**30), "--root", str(tmp_path / "skills")]):
        result = run_cli(args, cwd=work)
        assert_no_crash(result)
        assert result.code == 0 and "- good:" in result.out


@pytest.mark.parametrize("override", ["novalue", "=x", " . =1", "skills.max_context_tokens"])
def test_malformed_overrides_fail_with_the_override_named(work: Path, override: str) -> None:
    for args in (["config", "show"], ["context", "x", "--no-builtin"]):
        result = run_cli([*args, "-c", override], cwd=work)
        assert_reported(result, exit_codes=(1,), code="CF108")
        assert override.strip() in result.err


def test_badly_typed_overrides_are_shown_by_context(work: Path) -> None:
    result = run_cli(["context", "x", "--no-builtin", "-c", "skills.max_context_tokens=[", "-c", "catalog=5"], cwd=work)
    assert_no_crash(result)
    assert result.codes.count("CF102") == 2 and result.err.count("fix:") >= 2


COMMENTED = """# my precious comment
[skills]
max_context_tokens = 4000 # inline comment
roots = ["/a", "/b"]

[[skills.config]]
name = "old"
mode = "manual"

[projects."/x"]
trust_level = "trusted"
"""


def test_enable_and_disable_keep_every_other_line_of_the_config(work: Path, isolated_home: Any) -> None:
    path = user_config(isolated_home)
    path.write_text(COMMENTED, encoding="utf-8")
    for args in (["disable", "foo"], ["enable", "bar", "--mode", "pinned"], ["disable", 'we"ird\\name\nx']):
        assert run_cli(args, cwd=work).code == 0
    lines = path.read_text(encoding="utf-8").splitlines()
    kept = iter(lines)
    assert all(line in kept for line in COMMENTED.splitlines())  # every line kept, in order
    text = "\n".join(lines)
    assert 'name = "we\\"ird\\\\name\\nx"' in text
    shown = run_cli(["config", "show", "--json"], cwd=work)
    assert shown.code == 0 and "CF" not in "".join(shown.codes)


@pytest.mark.parametrize(
    "content",
    [b"[skills\n# keep me\n", b"\xff\xfe not utf-8", b"skills = [1,\n"],
    ids=["syntax-error", "not-utf8", "unclosed-array"],
)
def test_enable_disable_on_an_unreadable_config_fail_and_change_nothing(
    work: Path, isolated_home: Any, content: bytes
) -> None:
    path = user_config(isolated_home)
    path.write_bytes(content)
    for args in (["disable", "foo"], ["enable", "foo", "--mode", "manual"]):
        assert_reported(run_cli(args, cwd=work), exit_codes=(1,))
        assert path.read_bytes() == content


@pytest.mark.parametrize("content", ["skills = 5\n", "[skills]\nconfig = 5\n"], ids=["skills-int", "config-int"])
def test_disable_on_a_config_with_wrong_types_fails_cleanly(work: Path, isolated_home: Any, content: str) -> None:
    path = user_config(isolated_home)
    path.write_text(content, encoding="utf-8")
    result = run_cli(["disable", "foo"], cwd=work)
    assert_reported(result, exit_codes=(1,))
    assert path.read_text(encoding="utf-8") == content


def test_disable_on_a_config_symlink_loop_fails_cleanly(work: Path, isolated_home: Any) -> None:
    path = user_config(isolated_home)
    path.symlink_to(path)
    assert_reported(run_cli(["disable", "foo"], cwd=work), exit_codes=(1,))


def test_disable_does_not_hang_on_a_fifo_config(work: Path, isolated_home: Any) -> None:
    os.mkfifo(user_config(isolated_home))
    code, _, err = run_process(["disable", "foo"], cwd=work, timeout=6)
    assert code == 1, "skillshelf disable hung on the FIFO"
    assert b"fix:" in err


def test_untrust_of_a_missing_folder_does_not_untrust_another_project(work: Path, isolated_home: Any) -> None:
    assert run_cli(["trust"], cwd=work).code == 0
    before = user_config(isolated_home).read_text(encoding="utf-8")
    result = run_cli(["untrust", str(work / "typo")], cwd=work)
    assert_reported(result, exit_codes=(1, 2))
    assert user_config(isolated_home).read_text(encoding="utf-8") == before


# -- instruction files ---------------------------------------------------------------------------


def test_binary_and_huge_agents_md_are_reported_and_capped(work: Path) -> None:
    (work / "AGENTS.md").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe" + bytes(range(256)) * 4)
    result = run_cli(["instructions"], cwd=work)
    assert_no_crash(result)
    assert "IN102" in result.codes and "fix:" in result.err
    context = run_cli(["context", "x", "--no-builtin", "--no-suggestions"], cwd=work)
    assert_no_crash(context)
    assert "IN102" in context.codes  # context shows instruction findings too
    sparse = work / "AGENTS.md"
    sparse.write_bytes(b"")
    with open(sparse, "wb") as handle:
        handle.write(b"Run the tests.\n")
        handle.truncate(50 * 1024 * 1024)
    raw = run_cli(["instructions", "--raw"], cwd=work)
    assert_no_crash(raw)
    assert "IN105" in raw.codes and len(raw.out) < 64 * 1024


def test_agents_md_that_is_a_folder_or_a_broken_link_is_skipped(work: Path, tmp_path: Path) -> None:
    (work / "AGENTS.md").mkdir()
    (work / "CLAUDE.md").symlink_to(tmp_path / "gone.md")
    for args in (["instructions"], ["instructions", "--profile", "claude"], ["context", "x", "--no-builtin"]):
        result = run_cli(args, cwd=work)
        assert_no_crash(result)
        assert result.code == 0
    for args, name in ((["instructions"], "AGENTS.md"), (["instructions", "--profile", "claude"], "CLAUDE.md")):
        result = run_cli(args, cwd=work)
        assert "IN106" in result.codes and str(work / name) in result.err and "fix:" in result.err


def test_instructions_cut_message_names_the_limit_that_cut(work: Path) -> None:
    with open(work / "AGENTS.md", "wb") as handle:
        handle.write(b"Run the tests.\n")
        handle.truncate(8 * 1024 * 1024)
    result = run_cli(["instructions", "--raw", "--max-bytes", "99999999999"], cwd=work)
    assert_no_crash(result)
    assert "project_doc_max_bytes (99999999999)" not in result.err
    assert "IN105" in result.codes and "read limit (4194304 bytes" in result.err


# -- install / update / remove ---------------------------------------------------------------------

GOOD = b"---\nname: zz\ndescription: A skill from an archive.\n---\nbody\n"


def _zip(path: Path, entries: list[tuple[str, bytes, int | None]]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data, mode in entries:
            if mode is None:
                archive.writestr(name, data)
            else:
                info = zipfile.ZipInfo(name)
                info.external_attr = mode << 16
                archive.writestr(info, data)
    return path


@pytest.mark.parametrize(
    ("entries", "code"),
    [
        ([("zz/SKILL.md", GOOD, None), ("../../evil.txt", b"pwned", None)], "IS201"),
        ([("zz/SKILL.md", GOOD, None), ("/tmp/skillshelf-evil.txt", b"pwned", None)], "IS202"),
        ([("zz/SKILL.md", GOOD, None), ("zz/fifo", b"", 0o010644)], "IS203"),
        ([("zz/SKILL.md", GOOD, None), ("zz/link", b"/etc/passwd", 0o120777)], "IS204"),
        ([("zz/SKILL.md", GOOD, None), ("zz/up", b"../../..", 0o120777), ("zz/up/evil.txt", b"x", None)], "IS204"),
        ([("readme.txt", b"no skill here", None)], "IS310"),
    ],
    ids=["zip-slip", "absolute", "fifo", "symlink-out", "symlink-dir", "no-skill"],
)
def test_install_refuses_hostile_archives_and_writes_nothing(
    work: Path, tmp_path: Path, isolated_home: Any, entries: list[tuple[str, bytes, int | None]], code: str
) -> None:
    archive = _zip(tmp_path / "bad.zip", entries)
    before = sorted(p for p in tmp_path.rglob("*") if "xdg-" not in str(p))
    result = run_cli(["install", str(archive)], cwd=work)
    assert_reported(result, exit_codes=(1,), code=code)
    assert sorted(p for p in tmp_path.rglob("*") if "xdg-" not in str(p)) == before
    assert not Path("/tmp/skillshelf-evil.txt").exists()
    installed = Path(isolated_home.data) / "skillshelf" / "skills"
    assert not installed.exists() or not any(p.name == "zz" for p in installed.iterdir())


@pytest.mark.parametrize("content", [b"", b"this is not a zip", b"PK\x03\x04truncated"], ids=["empty", "text", "truncated"])
def test_install_of_a_broken_zip_says_so(work: Path, tmp_path: Path, content: bytes) -> None:
    (tmp_path / "broken.zip").write_bytes(content)
    assert_reported(run_cli(["install", str(tmp_path / "broken.zip")], cwd=work), exit_codes=(1,), code="IS200")


def test_install_from_nothing_or_with_a_hostile_name(work: Path, tmp_path: Path) -> None:
    assert_reported(run_cli(["install", str(tmp_path / "missing")], cwd=work), exit_codes=(1,), code="IS101")
    assert_reported(run_cli(["install", ""], cwd=work), exit_codes=(1,), code="IS101")
    assert_reported(run_cli(["install", "gh:"], cwd=work), exit_codes=(1,), code="IS101")
    write_skill(tmp_path / "good", "good")
    for name in ("../../x", "a/b", "..", "x\ny"):
        assert_reported(run_cli(["install", str(tmp_path / "good"), "--name", name], cwd=work), exit_codes=(2,))


@pytest.fixture
def deep_tree(tmp_path: Path) -> Iterator[Path]:
    """``deep/d/d/.../d/SKILL.md`` 1,100 folders deep (built and removed with folder descriptors, without
    recursion, so neither PATH_MAX nor the recursion limit of shutil.rmtree gets in the way)."""
    base = tmp_path / "deep"
    base.mkdir()
    fds = [os.open(base, os.O_RDONLY)]
    for _ in range(1100):
        os.mkdir("d", dir_fd=fds[-1])
        fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
    handle = os.open("SKILL.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fds[-1])
    os.write(handle, b"---\nname: deep\ndescription: very deep\n---\n")
    os.close(handle)
    try:
        yield base
    finally:
        os.unlink("SKILL.md", dir_fd=fds[-1])
        for above, below in zip(reversed(fds[:-1]), reversed(fds[1:]), strict=True):
            os.close(below)
            os.rmdir("d", dir_fd=above)
        os.close(fds[0])


def test_install_from_a_very_deep_folder_fails_cleanly(work: Path, deep_tree: Path) -> None:
    assert_reported(run_cli(["install", str(deep_tree)], cwd=work), exit_codes=(1,), code="IS312")


def test_validate_and_list_on_a_very_deep_folder(work: Path, deep_tree: Path) -> None:
    checked = run_cli(["validate", str(deep_tree)], cwd=work)
    assert_no_crash(checked)
    assert "SK359" in checked.codes  # the walk stopped at its depth limit, and says so
    listed = run_cli(["list", "--no-builtin", "--root", str(deep_tree)], cwd=work)
    assert_no_crash(listed)
    assert listed.code == 0


def test_a_corrupt_lock_file_stops_changes_and_is_kept(work: Path, tmp_path: Path, isolated_home: Any) -> None:
    write_skill(tmp_path / "good", "good")
    assert run_cli(["install", str(tmp_path / "good")], cwd=work).code == 0
    lock = Path(isolated_home.data) / "skillshelf" / "skills" / ".skillshelf-lock.json"
    assert lock.exists()
    lock.write_bytes(b'{"version": 1, "skills": {"good": 5}}')
    for args in (["update"], ["remove", "good"], ["install", str(tmp_path / "good"), "--force"]):
        assert_reported(run_cli(args, cwd=work), exit_codes=(1,), code="IS401")
    assert lock.read_bytes() == b'{"version": 1, "skills": {"good": 5}}'
    assert (lock.parent / "good" / "SKILL.md").exists()


@pytest.mark.parametrize(
    ("content", "code"),
    [(b"# keep\n[skills\n", "IS503"), (b"mcp_servers = 5\n", "IS502"), (b"\xff\xfe", "IS504")],
    ids=["syntax", "not-a-table", "not-utf8"],
)
def test_deps_write_never_touches_a_config_it_cannot_read(
    work: Path, tmp_path: Path, isolated_home: Any, content: bytes, code: str
) -> None:
    skill = tmp_path / "skills" / "needs-server"
    write_skill(skill, "needs-server")
    (skill / "agents").mkdir()
    (skill / "agents" / "openai.yaml").write_text(
        "dependencies:\n  tools:\n    - type: mcp\n      value: srv\n      transport: streamable_http\n"
        "      url: https://example.com/mcp\n", encoding="utf-8")
    path = user_config(isolated_home)
    path.write_bytes(content)
    result = run_cli(["deps", "--write", "--no-builtin", "--root", str(tmp_path / "skills")], cwd=work)
    assert_reported(result, exit_codes=(1,), code=code)
    assert path.read_bytes() == content


def test_deps_write_hint_names_the_encoding_problem_not_permissions(
    work: Path, tmp_path: Path, isolated_home: Any
) -> None:
    skill = tmp_path / "skills" / "needs-server"
    write_skill(skill, "needs-server")
    (skill / "agents").mkdir()
    (skill / "agents" / "openai.yaml").write_text(
        "dependencies:\n  tools:\n    - type: mcp\n      value: srv\n      transport: streamable_http\n"
        "      url: https://example.com/mcp\n", encoding="utf-8")
    user_config(isolated_home).write_bytes(b"# caf\xe9\n")
    result = run_cli(["deps", "--write", "--no-builtin", "--root", str(tmp_path / "skills")], cwd=work)
    assert_reported(result, exit_codes=(1,), code="IS504")
    assert "UTF-8" in result.err and "permissions" not in result.err


def test_update_and_remove_of_unknown_names(work: Path) -> None:
    for args in (["remove", "../../etc"], ["remove", ""], ["update", "nothing-here"]):
        assert_reported(run_cli(args, cwd=work), exit_codes=(1,), code="IS404")


# -- memory, redact, eval, serve, agent, lint-arch ---------------------------------------------------------


def test_memory_run_on_a_missing_sessions_path_fails(work: Path, tmp_path: Path) -> None:
    result = run_cli(["memory", "run", "--dry-run", "--sessions", str(tmp_path / "missing.jsonl"),
                      "--db", str(tmp_path / "state.sqlite")], cwd=work)
    assert_reported(result, exit_codes=(2,))
    assert "missing.jsonl" in result.err


def test_memory_run_on_broken_jsonl_says_what_is_wrong(work: Path, tmp_path: Path) -> None:
    sessions = tmp_path / "broken.jsonl"
    sessions.write_bytes(b'{"a":1}\n{broken\n\xff\xfe\n[1,2]\n"str"\n\n')
    result = run_cli(["memory", "run", "--dry-run", "--sessions", str(sessions), "--db", str(tmp_path / "s.sqlite")],
                     cwd=work)
    assert_no_crash(result)
    assert result.codes and "fix:" in result.text and str(sessions) in result.text
    assert result.code == 0 and "ME104" in result.codes  # a skipped file is a warning; the run itself completed


def test_memory_run_does_not_hang_on_a_fifo_in_a_sessions_folder(work: Path, tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    os.mkfifo(sessions / "rollout-1.jsonl")
    code, _, err = run_process(["memory", "run", "--dry-run", "--sessions", str(sessions), "--db",
                              str(tmp_path / "s.sqlite")], cwd=work, timeout=6)
    assert code is not None, "skillshelf memory run hung on the FIFO"
    assert code == 0 and b"ME105" in err and b"rollout-1.jsonl" in err and b"fix:" in err


def test_memory_commands_on_a_database_that_is_not_one(work: Path, tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.db"
    bogus.write_bytes(os.urandom(4096))
    for args in (["memory", "status"], ["memory", "run", "--dry-run", "--sessions", str(bogus)], ["memory", "prune"]):
        assert_reported(run_cli([*args, "--db", str(bogus)], cwd=work), exit_codes=(1,), code="ME010")
    assert_reported(run_cli(["memory", "status", "--db", str(tmp_path)], cwd=work), exit_codes=(1,), code="ME010")


def test_memory_dry_run_creates_no_folder_and_no_database(work: Path, tmp_path: Path) -> None:
    sessions = tmp_path / "broken.jsonl"
    sessions.write_bytes(b'{"a":1}\n')
    db = tmp_path / "missing" / "x.db"
    result = run_cli(["memory", "run", "--dry-run", "--sessions", str(sessions), "--db", str(db)], cwd=work)
    assert_no_crash(result)
    assert result.code == 0 and not db.parent.exists()


def test_memory_dry_run_leaves_an_existing_database_byte_for_byte(work: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    assert run_cli(["memory", "status", "--db", str(db)], cwd=work).code == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("s.sqlite")}
    sessions = tmp_path / "rollout.jsonl"
    sessions.write_bytes(b'{"type":"session_meta","payload":{"id":"x","cwd":"/tmp"}}\n')
    result = run_cli(["memory", "run", "--dry-run", "--sessions", str(sessions), "--db", str(db)], cwd=work)
    assert_no_crash(result)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("s.sqlite")} == before


@pytest.mark.parametrize("value", ["-3", "-0.5", '"many"', "true"])
def test_memory_rejects_a_negative_or_non_numeric_call_budget(work: Path, tmp_path: Path, value: str) -> None:
    result = run_cli(["memory", "run", "--dry-run", "-c", f"memory.max_model_calls={value}",
                      "--db", str(tmp_path / "s.sqlite")], cwd=work)
    assert_reported(result, exit_codes=(1, 2))
    assert {"ME022", "ME027"} & set(result.codes), result.codes
    assert not (tmp_path / "s.sqlite").exists()


def test_memory_config_that_is_not_a_table(work: Path, tmp_path: Path) -> None:
    result = run_cli(["memory", "run", "--dry-run", "-c", "memory=5", "--db", str(tmp_path / "s.sqlite")], cwd=work)
    assert_reported(result, exit_codes=(1, 2))


def test_redact_survives_binary_stdin(work: Path) -> None:
    data = bytes(range(256)) * 64 + b" key AKIAQWERTYUIOPASDFGH end"
    code, out, err = run_process(["redact"], cwd=work, stdin=data)
    assert code == 0 and b"Traceback" not in err and b"internal error" not in err
    assert b"AKIAQWERTYUIOPASDFGH" not in out and out.endswith(b" end")


def test_redact_passes_non_utf8_bytes_through_unchanged(work: Path) -> None:
    data = b"caf\xe9 \x00\x01\xff binary tail\n"
    code, out, _ = run_process(["redact"], cwd=work, stdin=data)
    assert code == 0 and out == data


@pytest.mark.parametrize(
    ("lines", "code"),
    [(b'{"query": "x", "relevant": ["a"]}\nnot json\n', "SE302"), (b"\xff\xfe\x00\x01", "SE302"), (b"", "SE304")],
    ids=["bad-line", "binary", "empty"],
)
def test_eval_rejects_malformed_query_files(work: Path, tmp_path: Path, lines: bytes, code: str) -> None:
    write_skill(tmp_path / "skills" / "good", "good")
    (tmp_path / "q.jsonl").write_bytes(lines)
    result = run_cli(["eval", "--queries", str(tmp_path / "q.jsonl"), "--root", str(tmp_path / "skills")], cwd=work)
    assert_reported(result, exit_codes=(1, 2), code=code)


def test_eval_with_a_missing_query_file(work: Path, tmp_path: Path) -> None:
    write_skill(tmp_path / "skills" / "good", "good")
    result = run_cli(["eval", "--queries", str(tmp_path / "missing.jsonl"), "--root", str(tmp_path / "skills")], cwd=work)
    assert_reported(result, exit_codes=(1, 2), code="SE301")


@pytest.mark.parametrize(
    "args",
    [["serve", "--port", "abc"], ["serve", "--port", "99999"], ["serve", "--port", "-1"], ["serve", "--transport", "x"],
     ["catalog", "--budget-tokens", "0"], ["list", "--bogus"], ["no-such-command"], ["validate"], ["load"]],
)
def test_click_usage_errors_carry_a_code_and_a_fix(work: Path, args: list[str]) -> None:
    result = run_cli(args, cwd=work)
    assert_reported(result, exit_codes=(2,), code="SS002")
    assert "--help" in result.err


def test_serve_with_a_missing_root_is_a_usage_error(work: Path, tmp_path: Path) -> None:
    code, _, err = run_process(["serve", "--root", str(tmp_path / "missing"), "--no-builtin", "--no-watch"],
                               cwd=work, timeout=30)
    assert code == 2 and b"SK202" in err and b"fix:" in err and b"Traceback" not in err


def test_serve_on_an_address_that_is_not_there(work: Path) -> None:
    code, _, err = run_process(["serve", "--transport", "http", "--host", "256.1.1.1", "--port", "1", "--no-watch",
                                "--no-builtin"], cwd=work, timeout=60)
    assert code == 2 and b"SV410" in err and b"fix:" in err and b"Traceback" not in err


@pytest.mark.parametrize("model", ["bogus", "openai:", ":", "nope:thing"])
def test_run_with_a_malformed_model(work: Path, model: str) -> None:
    result = run_cli(["run", "task", "--model", model, "--base-url", "http://127.0.0.1:9"], cwd=work)
    assert_reported(result, exit_codes=(2,), code="AG001")


def test_run_without_a_model(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKILLSHELF_MODEL", raising=False)
    assert_reported(run_cli(["run", "task"], cwd=work), exit_codes=(2,), code="AG004")


def test_lint_arch_on_missing_and_binary_inputs(work: Path, tmp_path: Path) -> None:
    assert_reported(run_cli(["lint-arch", str(tmp_path / "missing")], cwd=work), exit_codes=(1, 2))
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00")
    result = run_cli(["lint-arch", "--config", str(tmp_path / "bin.toml")], cwd=work)
    assert_reported(result, exit_codes=(1, 2), code="AR010")

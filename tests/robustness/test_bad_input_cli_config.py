"""Bad input on the command line: config files, -c overrides, instruction files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from bad_input_helpers import (
    assert_no_crash,
    assert_reported,
    run_cli,
    run_process,
    user_config,
    write_skill,
)

# -- configuration -------------------------------------------------------------------------------


def test_a_config_syntax_error_is_reported_by_every_command_that_reads_it(
    work: Path, isolated_home: Any
) -> None:
    user_config(isolated_home).write_text("[skills\nmax_context_tokens = 4000\n", encoding="utf-8")
    for args in (
        ["config", "show"],
        ["list", "--no-builtin"],
        ["catalog", "--no-builtin"],
        ["context", "x", "--no-builtin"],
    ):
        result = run_cli(args, cwd=work)
        assert_reported(result, exit_codes=(1,), code="CF100")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('[skills]\nmax_context_tokens = "lots"\n', "CF102"),
        ('[[skills.config]]\nname = "x"\nmode = "sometimes"\n', "CF104"),
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
    for args in (
        ["catalog", "--no-builtin", "--root", str(tmp_path / "skills")],
        ["catalog", "--no-builtin", "--context-window", str(10**30), "--root", str(tmp_path / "skills")],
        ["catalog", "--no-builtin", "--budget-chars", str(10**30), "--root", str(tmp_path / "skills")],
    ):
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
    result = run_cli(
        ["context", "x", "--no-builtin", "-c", "skills.max_context_tokens=[", "-c", "catalog=5"], cwd=work
    )
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


@pytest.mark.parametrize(
    "content", ["skills = 5\n", "[skills]\nconfig = 5\n"], ids=["skills-int", "config-int"]
)
def test_disable_on_a_config_with_wrong_types_fails_cleanly(
    work: Path, isolated_home: Any, content: str
) -> None:
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
    for args, name in (
        (["instructions"], "AGENTS.md"),
        (["instructions", "--profile", "claude"], "CLAUDE.md"),
    ):
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

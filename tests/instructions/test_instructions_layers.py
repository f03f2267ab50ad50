"""Provenance, diagnostics and the CLI of the instructions layer (no oracle needed)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillshelf.cli.main import cli
from skillshelf.env import Env
from skillshelf.errors import UsageError
from skillshelf.instructions import InstructionScope, LayerKind, load_instructions
from skillshelf.instructions.imports import clean_text, extract_imports


def _write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "a" / "b").mkdir(parents=True)
    return root


def _env(cwd: Path, tmp_path: Path) -> Env:
    return Env.for_test(cwd=cwd, home=tmp_path / "home", codex_home=tmp_path / "home" / ".codex")


def test_scopes_are_ordered_from_widest_to_narrowest() -> None:
    assert InstructionScope.MANAGED < InstructionScope.USER < InstructionScope.PROJECT
    assert InstructionScope.PROJECT < InstructionScope.FOLDER < InstructionScope.LOCAL


def test_claude_managed_policy_comes_first_and_claude_md_excludes_cannot_leave_it_out(
    repo: Path, tmp_path: Path
) -> None:
    """As Claude Code 2.1.197 reads ``/etc/claude-code`` (seen with ``claude-oracle`` run as
    root; a test cannot write there): the policy's CLAUDE.md (its imports from outside the cwd
    not loaded), the ``claudeMd`` text of its managed settings, then its rules; its own
    ``claudeMdExcludes`` leaves out project files but no file of the policy."""
    managed = tmp_path / "managed"
    _write(managed / "CLAUDE.md", "MANAGED @../outside.md\n")
    _write(tmp_path / "outside.md", "OUTSIDE\n")
    _write(managed / ".claude" / "rules" / "m.md", "MANAGED RULE\n")
    excludes = ["**/a/CLAUDE.md", f"{managed}/**"]
    _write(
        managed / "managed-settings.json",
        json.dumps({"claudeMd": "  POLICY TEXT\n", "claudeMdExcludes": excludes}),
    )
    _write(tmp_path / "home" / ".claude" / "CLAUDE.md", "USER\n")
    _write(repo / "CLAUDE.md", "ROOT\n")
    _write(repo / "a" / "CLAUDE.md", "A\n")
    env = dataclasses.replace(_env(repo / "a", tmp_path), claude_managed_dir=managed)

    result = load_instructions(env, profile="claude")

    included = [(layer.scope, layer.kind, layer.text) for layer in result.included]
    assert included == [
        (InstructionScope.MANAGED, LayerKind.CLAUDE, "MANAGED @../outside.md"),
        (InstructionScope.MANAGED, LayerKind.POLICY, "POLICY TEXT"),
        (InstructionScope.MANAGED, LayerKind.RULE, "MANAGED RULE"),
        (InstructionScope.USER, LayerKind.CLAUDE, "USER"),
        (InstructionScope.PROJECT, LayerKind.CLAUDE, "ROOT"),
    ]
    left_out = [layer for layer in result.layers if not layer.included]
    assert [(layer.path, layer.reason) for layer in left_out] == [
        (repo / "a" / "CLAUDE.md", "named by claudeMdExcludes in the settings")
    ]
    assert "Contents of " + str(managed / "managed-settings.json") in result.text


def test_each_agents_layer_records_file_scope_and_bytes_cut(repo: Path, tmp_path: Path) -> None:
    _write(tmp_path / "home" / ".codex" / "AGENTS.override.md", "global\n")
    _write(repo / "AGENTS.md", "0123456789\n")
    _write(repo / "a" / "AGENTS.md", "abcdefghij\n")
    _write(repo / "a" / "b" / "AGENTS.md", "never read\n")
    result = load_instructions(_env(repo / "a" / "b", tmp_path), max_bytes=15)
    summary = [
        (layer.path.name, layer.scope, layer.kind, layer.included, layer.bytes_cut) for layer in result.layers
    ]
    assert summary == [
        ("AGENTS.override.md", InstructionScope.USER, LayerKind.OVERRIDE, True, 0),
        ("AGENTS.md", InstructionScope.PROJECT, LayerKind.AGENTS, True, 0),
        ("AGENTS.md", InstructionScope.FOLDER, LayerKind.AGENTS, True, 7),
        ("AGENTS.md", InstructionScope.FOLDER, LayerKind.AGENTS, False, 11),
    ]
    assert result.layers[-1].reason == "skillshelf's max_bytes already spent"
    assert "IN105" in {d.code for d in result.diagnostics}
    assert result.text.endswith("\n\n\nabcd\n</INSTRUCTIONS>")


def test_non_utf8_file_is_reported_and_still_used(repo: Path, tmp_path: Path) -> None:
    _write(repo / "AGENTS.md", b"ok \xff\n")
    result = load_instructions(_env(repo, tmp_path))
    assert "ok \ufffd" in result.text
    assert [d.code for d in result.diagnostics] == ["IN102"]


def test_unknown_profile_and_negative_cap_are_usage_errors(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        load_instructions(_env(repo, tmp_path), profile="cursor")  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        load_instructions(_env(repo, tmp_path), max_bytes=-1)


def test_broken_codex_config_falls_back_to_defaults_with_a_warning(repo: Path, tmp_path: Path) -> None:
    _write(tmp_path / "home" / ".codex" / "config.toml", "project_doc_max_bytes = = 3\n")
    _write(repo / "AGENTS.md", "x" * 100)
    result = load_instructions(_env(repo, tmp_path))
    assert "x" * 100 in result.text
    assert [d.code for d in result.diagnostics] == ["IN104"]


def test_a_broken_project_codex_config_is_reported_and_the_other_layers_still_apply(
    repo: Path, tmp_path: Path
) -> None:
    _write(repo / ".git" / "HEAD", "ref: refs/heads/main\n")
    _write(tmp_path / "home" / ".codex" / "config.toml", f'[projects."{repo}"]\ntrust_level = "trusted"\n')
    _write(repo / ".codex" / "config.toml", 'project_doc_fallback_filenames = ["NOTES.md"]\n')
    _write(repo / "a" / ".codex" / "config.toml", "project_doc_max_bytes = = 3\n")
    _write(repo / "a" / "NOTES.md", "fallback notes\n")
    result = load_instructions(_env(repo / "a", tmp_path))
    assert "fallback notes" in result.text
    [broken] = result.diagnostics
    assert broken.code == "IN104" and broken.path == repo / "a" / ".codex" / "config.toml"


def test_names_with_a_nul_in_codex_config_are_skipped_not_a_crash(repo: Path, tmp_path: Path) -> None:
    _write(
        tmp_path / "home" / ".codex" / "config.toml",
        'project_doc_fallback_filenames = ["a\\u0000b", "NOTES.md"]\n'
        'project_root_markers = ["x\\u0000y", ".git"]\n',
    )
    _write(repo / "a" / "NOTES.md", "fallback notes\n")
    result = load_instructions(_env(repo / "a", tmp_path))
    assert "fallback notes" in result.text and not result.diagnostics


@pytest.mark.parametrize(
    ("override", "texts"),
    [(None, ["team rules", "notes"]), (["OTHER.md"], ["root notes", "notes"])],
    ids=["after-codexs-names", "after-the-override"],
)
def test_extra_fallback_names_are_tried_after_the_fallback_names_in_force(
    repo: Path, tmp_path: Path, override: list[str] | None, texts: list[str]
) -> None:
    _write(tmp_path / "home" / ".codex" / "config.toml", 'project_doc_fallback_filenames = ["TEAM.md"]\n')
    _write(repo / "TEAM.md", "team rules\n")
    _write(repo / "NOTES.md", "root notes\n")  # read only where no earlier name exists
    _write(repo / "a" / "b" / "NOTES.md", "notes\n")
    result = load_instructions(
        _env(repo / "a" / "b", tmp_path), fallback_filenames=override, extra_fallback_filenames=["NOTES.md"]
    )
    assert [layer.text.strip() for layer in result.included] == texts


def test_claude_imports_report_missing_external_and_too_deep(tmp_path: Path, repo: Path) -> None:
    _write(repo / "a" / "CLAUDE.md", "@nothere.md @../outside.md @d1.md\n")
    _write(repo / "outside.md", "outside\n")
    for i in range(1, 7):
        _write(repo / "a" / f"d{i}.md", f"level {i} @d{i + 1}.md\n")
    result = load_instructions(_env(repo / "a", tmp_path), profile="claude")
    codes = [d.code for d in result.diagnostics]
    assert codes.count("IN111") == 1 and codes.count("IN112") == 1 and codes.count("IN113") == 1
    included = [layer.path.name for layer in result.included]
    assert included == ["CLAUDE.md", "d1.md", "d2.md", "d3.md", "d4.md"]
    assert result.included[2].imported_from == repo / "a" / "d1.md"
    assert result.included[4].depth == 4


def test_claude_import_cycle_includes_each_file_once(tmp_path: Path, repo: Path) -> None:
    _write(repo / "CLAUDE.md", "root @x.md\n")
    _write(repo / "x.md", "x @y.md\n")
    _write(repo / "y.md", "y @x.md @CLAUDE.md\n")
    result = load_instructions(_env(repo, tmp_path), profile="claude")
    assert [layer.path.name for layer in result.included] == ["CLAUDE.md", "x.md", "y.md"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see @a.md and @./b.md", ["a.md", "./b.md"]),
        ("`@code.md` and ``@x.md`` only", []),
        ("```\n@fenced.md\n```\n@after.md", ["after.md"]),
        ("mail me@host.org or (@paren.md) or \\@esc.md", []),
        ("**@bold.md** _@it.md_", ["bold.md", "it.md"]),
        ("@frag.md#part @sp\\ ace.md @#only @/ @@x", ["frag.md", "sp ace.md"]),
        ("\n    @indented-code.md\n", []),
        ("@twice.md and @twice.md", ["twice.md"]),
        (
            "**see @in-bold.md** *and @in-em.md*, **a** @not-closed.md**",
            ["in-bold.md", "in-em.md", "not-closed.md**"],
        ),
        (
            "**@p.md**. (**see @q.md**) **see @r.md**x _see @s.md_x my_@t.md_",
            ["p.md", "q.md", "r.md", "s.md_x"],
        ),
        ("[see @link.md](u) ![@image.md](i) [@text.md]", ["link.md"]),
    ],
)
def test_import_syntax(text: str, expected: list[str]) -> None:
    assert extract_imports(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- see **@x.md** and @y.md", ["y.md", "x.md"]),
        ("1. _@x.md_ @y.md", ["y.md", "x.md"]),
        ("- @x.md @y.md", ["x.md", "y.md"]),
        ("- top\n  - [@x.md](u) @y.md", ["y.md", "x.md"]),
        ("- **@x.md** first\n  second @y.md", ["y.md", "x.md"]),
        ("> - *see @x.md* @y.md", ["y.md", "x.md"]),
        ("- a <!-- @x.md --> `b @y.md c` `@z.md`", ["x.md", "y.md"]),
        ("- **see @x.md**. and @y.md", ["y.md", "x.md"]),
        ("- item\n\n  loose **see @x.md** @y.md\n\nsee **@a.md** @b.md", ["y.md", "x.md", "a.md", "b.md"]),
    ],
)
def test_a_list_items_text_is_read_whole_before_its_pieces(text: str, expected: list[str]) -> None:
    """As Claude Code reads a list item: an ``@`` after whitespace anywhere in its text first
    (inside inline code and comments too), then the emphasis and link pieces."""
    assert extract_imports(text) == expected


def test_carriage_returns_are_kept_unless_a_comment_makes_the_text_be_rebuilt() -> None:
    assert clean_text("one\r\ntwo\rthree\r\n") == "one\r\ntwo\rthree\r\n"
    assert clean_text("one\r\n<!-- c -->\r\ntwo\rthree\r\n") == "one\ntwo\nthree\n"
    assert extract_imports("one\r\n@a.md\r\n- **@b.md** @c.md\r\n```\r\n@d.md\r\n```\r\n") == [
        "a.md",
        "c.md",
        "b.md",
    ]


def test_claude_md_with_crlf_keeps_it_in_every_file(tmp_path: Path, repo: Path) -> None:
    (repo / "CLAUDE.md").write_bytes(b"one\r\ntwo @imp.md\r\n")
    (repo / "imp.md").write_bytes(b"IMP\r\nline\r\n")
    (repo / ".claude" / "rules").mkdir(parents=True)
    (repo / ".claude" / "rules" / "r.md").write_bytes(b"---\r\ndescription: d\r\n---\r\nRULE\r\nr2\r\n")
    result = load_instructions(_env(repo, tmp_path), profile="claude")
    assert [layer.text for layer in result.included] == ["one\r\ntwo @imp.md", "IMP\r\nline", "RULE\r\nr2"]


def test_instructions_command_prints_json_and_block(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(repo / "AGENTS.md", "be kind\n")
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "home" / ".codex"))
    runner = CliRunner()
    result = runner.invoke(cli, ["instructions", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["layers"][0]["path"] == str((repo / "AGENTS.md").resolve())
    raw = runner.invoke(cli, ["instructions", "--raw"])
    assert (
        raw.output
        == f"# AGENTS.md instructions for {repo.resolve()}\n\n<INSTRUCTIONS>\nbe kind\n\n</INSTRUCTIONS>\n"
    )
    people = runner.invoke(cli, ["instructions", "--profile", "claude"])
    assert people.exit_code == 0 and "No CLAUDE.md files apply" in people.output


def test_folder_or_broken_link_named_like_an_instructions_file_is_noted_and_block_unchanged(
    repo: Path, tmp_path: Path
) -> None:
    _write(repo / "AGENTS.md", "Run the tests.\n")
    _write(repo / "CLAUDE.md", "Run the tests.\n")
    env = _env(repo / "a", tmp_path)
    before = {profile: load_instructions(env, profile=profile).text for profile in ("codex", "claude")}
    (repo / "a" / "AGENTS.override.md").mkdir()
    (repo / "a" / "AGENTS.md").symlink_to(tmp_path / "gone.md")
    (repo / "a" / "CLAUDE.md").mkdir()
    codex = load_instructions(env)
    claude = load_instructions(env, profile="claude")
    assert codex.text == before["codex"] and claude.text == before["claude"]
    found = {
        (d.path.name if d.path else None, d.severity.value) for d in codex.diagnostics if d.code == "IN106"
    }
    assert found == {("AGENTS.override.md", "info"), ("AGENTS.md", "warning")}
    assert [d.path for d in claude.diagnostics if d.code == "IN106"] == [repo / "a" / "CLAUDE.md"]
    assert all(d.fix for d in (*codex.diagnostics, *claude.diagnostics))


def test_cut_by_the_read_limit_names_that_limit_not_project_doc_max_bytes(repo: Path, tmp_path: Path) -> None:
    from skillshelf.instructions.files import HARD_READ_LIMIT

    with open(repo / "AGENTS.md", "wb") as handle:
        handle.write(b"Run the tests.\n")
        handle.truncate(HARD_READ_LIMIT + 10)
    env = _env(repo, tmp_path)
    [beyond] = [
        d for d in load_instructions(env, max_bytes=HARD_READ_LIMIT * 10).diagnostics if d.code == "IN105"
    ]
    assert "read limit" in beyond.message and "project_doc_max_bytes" not in beyond.message.split(";")[0]
    [within] = [d for d in load_instructions(env, max_bytes=1000).diagnostics if d.code == "IN105"]
    assert "skillshelf's max_bytes (1000)" in within.message


def test_a_claude_md_excludes_pattern_that_cannot_be_compiled_is_reported_and_the_others_apply(
    repo: Path, tmp_path: Path
) -> None:
    """A project's own settings are untrusted: a pattern of 4,096 brace alternatives is a
    warning (IN116), not a traceback, and the other patterns still leave their files out."""
    _write(repo / "CLAUDE.md", "ROOT\n")
    _write(repo / "a" / "CLAUDE.md", "A\n")
    bomb = "{a,b}" * 12
    _write(
        repo / "a" / ".claude" / "settings.json",
        json.dumps({"claudeMdExcludes": [bomb, "**/repo/CLAUDE.md"]}),
    )

    result = load_instructions(_env(repo / "a", tmp_path), profile="claude")

    assert [layer.text for layer in result.included] == ["A"]
    (problem,) = [d for d in result.diagnostics if d.code == "IN116"]
    assert bomb in problem.message and problem.fix

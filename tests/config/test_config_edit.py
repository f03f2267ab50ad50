"""`enable` / `disable` / `trust` edit TOML in place: comments and everything untouched survive."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillshelf.cli.main import cli
from skillshelf.config import SkillMode
from skillshelf.config.edit import set_skill_mode, set_trust
from skillshelf.errors import ConfigError

ORIGINAL = """\
# skillshelf user config -- hand written, keep my notes!
[catalog]   # the list the model sees
format = "codex"      # aligned comment
budget_tokens = 4_000

# Codex-style entry below
[[skills.config]]
name = "alpha"
enabled = true  # was noisy

[[skills.config]]
name = "beta"
mode = "manual"

[requirements]
max_catalog_tokens = 9000   # admin asked
"""


def test_disable_existing_codex_entry_changes_only_that_value(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(ORIGINAL, encoding="utf-8")
    result = set_skill_mode(path, "alpha", SkillMode.DISABLED)
    assert result.previous == "enabled" and result.changed and not result.created
    after = path.read_text(encoding="utf-8")
    assert after == ORIGINAL.replace("enabled = true  # was noisy", "enabled = false  # was noisy")


def test_new_mode_on_codex_entry_switches_to_mode_key_and_keeps_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(ORIGINAL, encoding="utf-8")
    set_skill_mode(path, "alpha", SkillMode.PINNED)
    after = path.read_text(encoding="utf-8")
    before_entry, after_entry = ORIGINAL.split('name = "alpha"\n')
    assert after.startswith(before_entry + 'name = "alpha"\n')
    assert after.endswith(after_entry.split("\n", 1)[1])
    assert tomllib.loads(after)["skills"]["config"][0] == {"name": "alpha", "mode": "pinned"}


def test_new_entry_is_added_and_every_original_line_is_kept_in_order(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(ORIGINAL, encoding="utf-8")
    set_skill_mode(path, "gamma", SkillMode.DISABLED)
    after = path.read_text(encoding="utf-8")
    remaining = after
    for line in ORIGINAL.splitlines(keepends=True):
        index = remaining.index(line)
        remaining = remaining[index + len(line) :]
    data = tomllib.loads(after)
    assert data["skills"]["config"][-1] == {"name": "gamma", "mode": "disabled"}
    assert data["requirements"] == {"max_catalog_tokens": 9000}
    assert len(after) - len(ORIGINAL) == len('[[skills.config]]\nname = "gamma"\nmode = "disabled"\n\n')


def test_same_mode_again_leaves_the_file_untouched(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(ORIGINAL, encoding="utf-8")
    assert not set_skill_mode(path, "beta", SkillMode.MANUAL).changed
    assert path.read_text(encoding="utf-8") == ORIGINAL


def test_missing_file_and_folder_are_created(tmp_path: Path) -> None:
    path = tmp_path / "new" / "dir" / "config.toml"
    result = set_skill_mode(path, str(tmp_path / "skills" / "x" / "SKILL.md"), SkillMode.DISABLED)
    assert result.created
    assert tomllib.loads(path.read_text(encoding="utf-8")) == {
        "skills": {"config": [{"path": str(tmp_path / "skills" / "x" / "SKILL.md"), "mode": "disabled"}]}
    }


def test_inline_array_entries_are_extended_in_place(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    text = '# note\nskills.config = [{ name = "a", mode = "manual" }]  # inline\n'
    path.write_text(text, encoding="utf-8")
    set_skill_mode(path, "b", SkillMode.DISABLED)
    after = path.read_text(encoding="utf-8")
    assert after.startswith("# note\n") and after.rstrip().endswith("# inline")
    assert [e["name"] for e in tomllib.loads(after)["skills"]["config"]] == ["a", "b"]


def test_broken_file_is_never_written(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    broken = "# mine\n[catalog\nformat = 1\n"
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        set_skill_mode(path, "alpha", SkillMode.DISABLED)
    assert info.value.code == "CF100" and info.value.line == 2 and "nothing was changed" in info.value.hint
    assert path.read_text(encoding="utf-8") == broken
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]


def test_trust_then_untrust_edits_one_entry(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(ORIGINAL, encoding="utf-8")
    project = tmp_path / "some project"
    set_trust(path, project, True)
    trusted = path.read_text(encoding="utf-8")
    assert trusted.startswith(ORIGINAL)
    assert tomllib.loads(trusted)["projects"][str(project)] == {"trust_level": "trusted"}
    result = set_trust(path, project, False)
    assert result.previous == "trusted"
    assert path.read_text(encoding="utf-8") == trusted.replace('"trusted"', '"untrusted"')


def test_cli_enable_disable_trust_round_trip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_config_dir: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    monkeypatch.chdir(repo)
    runner = CliRunner()
    assert runner.invoke(cli, ["disable", "alpha"]).exit_code == 0
    assert runner.invoke(cli, ["enable", "beta", "--mode", "name-only"]).exit_code == 0
    project = runner.invoke(cli, ["disable", "gamma", "--project"])
    assert project.exit_code == 0 and "not trusted" in project.stderr
    assert runner.invoke(cli, ["trust"]).exit_code == 0
    shown = runner.invoke(cli, ["config", "show", "--json", "--explain"])
    assert shown.exit_code == 0, shown.output
    import json

    data = json.loads(shown.stdout)
    assert [(r["name"], r["mode"]) for r in data["skill_rules"]] == [
        ("alpha", "disabled"),
        ("beta", "name-only"),
        ("gamma", "disabled"),
    ]
    assert data["trust"]["trusted"] is True
    assert runner.invoke(cli, ["untrust"]).exit_code == 0
    data = json.loads(runner.invoke(cli, ["config", "show", "--json"]).stdout)
    assert [r["name"] for r in data["skill_rules"]] == ["alpha", "beta"]
    people = runner.invoke(cli, ["config", "show", "--explain"])
    assert people.exit_code == 0 and "off: marked untrusted" in people.stdout


def test_cli_trust_and_project_edits_act_on_the_root_codexs_markers_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_config_dir: Path
) -> None:
    """`trust`, `untrust` and `--project` take the root the config loader reads, which Codex's
    ``project_root_markers`` move when skillshelf's config names none (as discovery's)."""
    import json

    repo = tmp_path / "repo"
    sub = repo / "sub"
    (repo / ".git").mkdir(parents=True)
    (sub / ".hg").mkdir(parents=True)
    (sub / "deep").mkdir()
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "config.toml").write_text('project_root_markers = [".hg"]\n', encoding="utf-8")
    monkeypatch.chdir(sub / "deep")
    runner = CliRunner()
    trusted = runner.invoke(cli, ["trust", "--json"])
    assert trusted.exit_code == 0 and json.loads(trusted.stdout)["project"] == str(sub.resolve())
    written = runner.invoke(cli, ["disable", "gamma", "--project"])
    assert written.exit_code == 0 and "not in effect" not in written.stderr
    assert (sub / ".skillshelf" / "config.toml").is_file() and not (repo / ".skillshelf").exists()
    untrusted = runner.invoke(cli, ["untrust", "--json"])
    assert untrusted.exit_code == 0 and json.loads(untrusted.stdout)["project"] == str(sub.resolve())


def test_crlf_file_keeps_its_bytes_and_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    original = b'# windows\r\n[catalog]\r\nformat = "xml"  # x\r\n'
    path.write_bytes(original)
    set_skill_mode(path, "alpha", SkillMode.DISABLED)
    after = path.read_bytes()
    assert after.startswith(original)
    assert b"\n" not in after.replace(b"\r\n", b"")
    assert tomllib.loads(after.decode())["skills"]["config"] == [{"name": "alpha", "mode": "disabled"}]


def test_symlinked_config_is_edited_through_the_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "skillshelf.toml"
    real.parent.mkdir()
    real.write_text("# mine\n", encoding="utf-8")
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    set_skill_mode(link, "alpha", SkillMode.DISABLED)
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8").startswith("# mine\n")
    assert "alpha" in real.read_text(encoding="utf-8")


def test_cli_trust_of_a_subfolder_trusts_its_project_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pkg" / "deep").mkdir(parents=True)
    monkeypatch.setenv("SKILLSHELF_CONFIG_DIR", str(tmp_path / "cfg"))
    result = CliRunner().invoke(cli, ["trust", str(repo / "pkg" / "deep")])
    assert result.exit_code == 0, result.output
    data = tomllib.loads((tmp_path / "cfg" / "config.toml").read_text(encoding="utf-8"))
    assert data == {"projects": {str(repo.resolve()): {"trust_level": "trusted"}}}
    missing = CliRunner().invoke(cli, ["trust", str(tmp_path / "nope")])
    assert missing.exit_code == 2


@pytest.mark.parametrize(
    "content",
    ["skills = 5\n", "[skills]\nconfig = 5\n", 'skills = "x"\n'],
    ids=["skills-int", "config-int", "skills-str"],
)
def test_wrong_typed_skills_table_is_a_cf111_error_and_never_written(tmp_path: Path, content: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        set_skill_mode(path, "foo", SkillMode.DISABLED)
    assert info.value.code == "CF111" and info.value.hint and "nothing was changed" in info.value.message
    assert path.read_text(encoding="utf-8") == content


@pytest.mark.parametrize(
    "content", ["projects = 5\n", '[projects]\n"/x" = 1\n'], ids=["projects-int", "entry-int"]
)
def test_wrong_typed_projects_table_is_a_cf111_error_for_trust(tmp_path: Path, content: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        set_trust(path, Path("/x"), True)
    assert info.value.code == "CF111"
    assert path.read_text(encoding="utf-8") == content


def test_symlink_loop_folder_and_fifo_configs_are_refused_with_cf110(tmp_path: Path) -> None:
    import os

    loop = tmp_path / "loop.toml"
    loop.symlink_to(loop)
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    for path in (loop, folder, fifo):
        with pytest.raises(ConfigError) as info:
            set_skill_mode(path, "foo", SkillMode.DISABLED)
        assert info.value.code == "CF110" and info.value.hint
    assert loop.is_symlink() and folder.is_dir() and not any(folder.iterdir())


@pytest.mark.parametrize("through_a_link", [False, True])
def test_a_read_only_config_is_never_rewritten_and_the_refusal_is_cf117(
    tmp_path: Path, through_a_link: bool
) -> None:
    real = tmp_path / "real.toml"
    real.write_text("# locked\n", encoding="utf-8")
    real.chmod(0o444)
    path = tmp_path / "config.toml" if through_a_link else real
    if through_a_link:
        path.symlink_to(real)
    before = real.stat()
    for edit in (
        lambda: set_skill_mode(path, "foo", SkillMode.DISABLED),
        lambda: set_trust(path, tmp_path, True),
    ):
        with pytest.raises(ConfigError) as info:
            edit()
        assert info.value.code == "CF117" and "chmod u+w" in info.value.hint
    after = real.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert real.read_text(encoding="utf-8") == "# locked\n" and path.is_symlink() is through_a_link
    real.chmod(0o644)
    assert set_skill_mode(path, "foo", SkillMode.DISABLED).changed


def test_cli_untrust_of_a_missing_folder_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLSHELF_CONFIG_DIR", str(tmp_path / "cfg"))
    result = CliRunner().invoke(cli, ["untrust", str(tmp_path / "typo")])
    assert result.exit_code == 2
    assert not (tmp_path / "cfg").exists()


def test_a_file_with_a_byte_order_mark_is_read_and_edited_and_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes('\ufeff# from Notepad\r\n[catalog]\r\nformat = "codex"\r\n'.encode())
    set_skill_mode(path, "lint-fix", SkillMode.DISABLED)
    text = path.read_bytes().decode("utf-8")
    assert text.startswith('\ufeff# from Notepad\r\n[catalog]\r\nformat = "codex"\r\n')
    assert tomllib.loads(text[1:])["skills"]["config"] == [{"name": "lint-fix", "mode": "disabled"}]


def test_config_without_a_command_shows_the_merged_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_config_dir: Path
) -> None:
    (cli_config_dir / "config.toml").write_text('[catalog]\nformat = "xml"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    bare = CliRunner().invoke(cli, ["config"])
    assert bare.exit_code == 0, bare.output
    assert bare.stdout == CliRunner().invoke(cli, ["config", "show"]).stdout
    assert "xml" in bare.stdout

"""``[[skills.config]]`` entries in Codex's own config.toml: the warnings and hints say what Codex
does with that file (it refuses an entry without a boolean `enabled`, ignores a folder path and
reads its entries whatever skillshelf's config says), while skillshelf's own config keeps its
`mode` syntax and folder paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.config import LayerKind, SkillMode, load_config
from skillshelf.config.loader import Config
from skillshelf.diagnostics import Diagnostic
from skillshelf.env import Env
from skillshelf.workspace import Workspace, WorkspaceOptions

OPTIONS = WorkspaceOptions(include_builtin=False, use_cache=False, memory=False)


def _env(tmp_path: Path, *, codex: str = "", user: str = "") -> Env:
    home = tmp_path / "home"
    env = Env.for_test(cwd=tmp_path, home=home)
    for folder, text in ((env.codex_home, codex), (env.dirs.config, user)):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "config.toml").write_text(text, encoding="utf-8")
    return env


def _config(tmp_path: Path, *, codex: str = "", user: str = "") -> Config:
    return load_config(_env(tmp_path, codex=codex, user=user))


def _only(diags: tuple[Diagnostic, ...], code: str) -> Diagnostic:
    found = [d for d in diags if d.code == code]
    assert len(found) == 1, diags
    return found[0]


def _skill_tree(tmp_path: Path) -> Path:
    """A user skill ``foo`` in ``~/.agents/skills``; its folder."""
    folder = tmp_path / "home" / ".agents" / "skills" / "foo"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: foo\ndescription: the foo skill\n---\nbody\n", "utf-8")
    return folder


def test_a_codex_entry_without_enabled_asks_for_enabled_and_says_codex_refuses_the_file(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path, codex='[[skills.config]]\nname = "foo"\n')
    diag = _only(config.diagnostics, "CF105")
    assert diag.path == tmp_path / "home" / ".codex" / "config.toml" and diag.line == 1
    assert "Codex refuses to start" in diag.message and "missing field `enabled`" in diag.message
    assert "enabled = false" in diag.fix and 'mode = "disabled"' not in diag.fix
    assert config.skill_rules == ()


def test_a_codex_entry_with_only_a_mode_is_applied_but_codex_refusing_the_file_is_reported(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path, codex='[[skills.config]]\nname = "foo"\nmode = "disabled"\n')
    diag = _only(config.diagnostics, "CF105")
    assert "Codex refuses to start" in diag.message and "enabled = false" in diag.fix
    assert [(r.name, r.mode) for r in config.skill_rules] == [("foo", SkillMode.DISABLED)]


def test_a_codex_entry_with_enabled_as_a_string_says_codex_refuses_the_file(tmp_path: Path) -> None:
    config = _config(tmp_path, codex='[[skills.config]]\nname = "foo"\nenabled = "false"\n')
    diag = _only(config.diagnostics, "CF102")
    assert "Codex refuses to start" in diag.message and "no quotes" in diag.fix


def test_skillshelfs_own_config_keeps_asking_for_a_mode(tmp_path: Path) -> None:
    config = _config(
        tmp_path, user='[[skills.config]]\nname = "foo"\n[[skills.config]]\nname = "b"\nenabled = "x"\n'
    )
    missing, wrong = _only(config.diagnostics, "CF105"), _only(config.diagnostics, "CF102")
    assert 'add mode = "disabled"' in missing.fix and "Codex" not in wrong.message


def test_a_codex_entry_with_a_boolean_enabled_gives_no_warning(tmp_path: Path) -> None:
    config = _config(tmp_path, codex='[[skills.config]]\nname = "foo"\nenabled = false\nmode = "manual"\n')
    assert config.diagnostics == ()
    assert [r.source for r in config.skill_rules] == [
        f"codex ({tmp_path / 'home' / '.codex' / 'config.toml'})"
    ]


def test_a_skill_a_codex_entry_disables_points_at_that_entry_not_at_skillshelf_enable(tmp_path: Path) -> None:
    _skill_tree(tmp_path)
    env = _env(
        tmp_path,
        codex='[skills.bundled]\nenabled = false\n[[skills.config]]\nname = "foo"\nenabled = false\n',
    )
    error = Workspace.open(env, OPTIONS).modes.disabled_error("foo")
    assert error is not None and error.code == "SK405"
    where = f"{env.codex_home / 'config.toml'}:3"
    assert error.disabled_by == where
    assert f"set enabled = true in the entry at {where}" in error.hint
    assert "`skillshelf enable foo` would enable it for skillshelf only" in error.hint
    assert not error.hint.startswith("run `skillshelf enable")


def test_a_skill_skillshelfs_config_disables_is_still_enabled_with_skillshelf_enable(tmp_path: Path) -> None:
    _skill_tree(tmp_path)
    env = _env(tmp_path, user='[[skills.config]]\nname = "foo"\nmode = "disabled"\n')
    error = Workspace.open(env, OPTIONS).modes.disabled_error("foo")
    assert error is not None and error.hint.startswith("run `skillshelf enable foo`")


@pytest.mark.parametrize("written", ["{folder}", "{folder}/"])
def test_a_codex_entry_naming_a_skill_folder_selects_nothing_and_says_to_name_skill_md(
    tmp_path: Path, written: str
) -> None:
    folder = _skill_tree(tmp_path)
    path = written.format(folder=folder)
    env = _env(
        tmp_path,
        codex=f'[skills.bundled]\nenabled = false\n[[skills.config]]\npath = "{path}"\nenabled = false\n',
    )
    workspace = Workspace.open(env, OPTIONS)
    assert [s.name for s in workspace.skills.listed] == ["foo"]
    diag = _only(workspace.config.diagnostics, "CF115")
    assert diag.line == 3 and "names a folder" in diag.message
    assert f'path = "{folder / "SKILL.md"}"' in diag.fix


def test_a_codex_entry_naming_skill_md_disables_without_a_warning(tmp_path: Path) -> None:
    folder = _skill_tree(tmp_path)
    env = _env(tmp_path, codex=f'[[skills.config]]\npath = "{folder / "SKILL.md"}"\nenabled = false\n')
    workspace = Workspace.open(env, OPTIONS)
    assert [s.name for s in workspace.modes.disabled] == ["foo"]
    assert workspace.config.diagnostics == ()


def test_skillshelfs_own_config_still_selects_a_skill_by_its_folder(tmp_path: Path) -> None:
    folder = _skill_tree(tmp_path)
    env = _env(tmp_path, user=f'[[skills.config]]\npath = "{folder}"\nmode = "disabled"\n')
    workspace = Workspace.open(env, OPTIONS)
    assert [s.name for s in workspace.modes.disabled] == ["foo"]
    assert [d.code for d in workspace.config.diagnostics] == []
    user = next(layer for layer in workspace.config.layers if layer.kind is LayerKind.USER)
    assert user.rules[0].path == folder


def test_a_misspelt_key_in_an_entry_is_reported_with_the_key_it_likely_means(tmp_path: Path) -> None:
    config = _config(tmp_path, user='[[skills.config]]\nname = "foo"\nmode = "manual"\nenabeld = false\n')
    diag = _only(config.diagnostics, "CF103")
    assert "`enabeld`" in diag.message and "Codex" not in diag.message
    assert "did you mean `enabled`" in diag.fix
    assert diag.line == 1 and [r.mode for r in config.skill_rules] == [SkillMode.MANUAL]


def test_a_misspelt_selector_names_its_likely_key_in_the_entrys_finding(tmp_path: Path) -> None:
    config = _config(tmp_path, user='[[skills.config]]\nnmae = "foo"\nmode = "disabled"\n')
    diag = _only(config.diagnostics, "CF105")
    assert "`nmae`" in diag.message and diag.fix.startswith("did you mean `name` for `nmae`?")
    assert config.skill_rules == ()


def test_an_unknown_key_in_a_codex_entry_says_codex_ignores_it_without_refusing_the_file(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path, codex='[[skills.config]]\nname = "foo"\nenabled = false\nmodee = "manual"\n')
    diag = _only(config.diagnostics, "CF103")
    assert "by Codex (Codex does not refuse the file)" in diag.message and "did you mean `mode`" in diag.fix
    assert [r.mode for r in config.skill_rules] == [SkillMode.DISABLED]

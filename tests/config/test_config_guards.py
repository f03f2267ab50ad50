"""Guards on what a config layer may do: a system layer that cannot be read withholds skills, a
relative ``[projects]`` key trusts nothing, a project layer cannot set
``requirements.allow_project_config``, a moved system folder is said, and provenance keys are
written the way TOML writes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.config import Config, load_config
from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env


class Tree:
    """A git project, a user config folder and a system config folder under ``tmp_path``."""

    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path / "home"
        self.user = tmp_path / "user"
        self.system = tmp_path / "system"
        self.repo = tmp_path / "repo"
        for folder in (self.home, self.user, self.system, self.repo / ".git"):
            folder.mkdir(parents=True)

    def write(self, folder: Path, text: str) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "config.toml"
        path.write_text(text, encoding="utf-8")
        return path

    def load(self, *, cwd: Path | None = None, system_dir: Path | None = None) -> Config:
        env = Env.for_test(cwd=cwd or self.repo, home=self.home)
        return load_config(env, user_dir=self.user, system_dir=system_dir or self.system)


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(tmp_path)


def _only(diags: tuple[Diagnostic, ...], code: str) -> Diagnostic:
    found = [d for d in diags if d.code == code]
    assert len(found) == 1, diags
    return found[0]


def test_a_system_config_that_does_not_parse_withholds_skills(tree: Tree) -> None:
    path = tree.write(tree.system, '[requirements]\ndisabled_skills = ["alpha"]\nmax_catalog_tokens = \n')
    config = tree.load()
    withheld = config.skills_withheld
    assert withheld is not None and withheld.code == "CF118" and withheld.severity is Severity.ERROR
    assert str(path) in withheld.message and "withheld" in withheld.message
    assert withheld.fix and str(path) in withheld.fix
    assert _only(config.diagnostics, "CF118") == withheld


def test_a_system_config_that_cannot_be_read_withholds_skills(tree: Tree) -> None:
    (tree.system / "config.toml").mkdir()  # there, but not a file
    assert tree.load().skills_withheld is not None


def test_skills_are_not_withheld_for_a_good_or_missing_system_config_or_a_broken_user_one(
    tree: Tree,
) -> None:
    assert tree.load().skills_withheld is None  # no system file
    tree.write(tree.system, '[requirements]\ndisabled_skills = ["alpha"]\n')
    tree.write(tree.user, "[catalog\n")
    config = tree.load()
    assert config.skills_withheld is None
    assert [d.code for d in config.diagnostics if d.severity is Severity.ERROR] == ["CF100"]


def test_a_relative_projects_key_trusts_no_project(tree: Tree) -> None:
    path = tree.write(tree.user, '[projects."."]\ntrust_level = "trusted"\n')
    config = tree.load()
    assert not config.trusted
    found = _only(config.diagnostics, "CF119")
    assert found.severity is Severity.WARNING and found.path == path and found.line == 1
    assert "skillshelf trust" in (found.fix or "")


def test_a_relative_projects_key_is_not_resolved_against_the_cwd(tree: Tree) -> None:
    tree.write(tree.user, '[projects."repo"]\ntrust_level = "trusted"\n')
    assert not tree.load(cwd=tree.repo).trusted
    assert any(d.code == "CF119" for d in tree.load(cwd=tree.repo).diagnostics)


def test_a_projects_key_starting_with_a_tilde_trusts_nothing_as_in_codex(
    tree: Tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tree.repo.parent))  # ~/NAME would be the repository if expanded
    tree.write(tree.user, f'[projects."~/{tree.repo.name}"]\ntrust_level = "trusted"\n')
    config = tree.load()
    assert not config.trusted
    assert _only(config.diagnostics, "CF119").severity is Severity.WARNING


def test_allow_project_config_in_a_project_layer_is_dropped_with_a_warning(tree: Tree) -> None:
    tree.write(tree.user, f'[projects."{tree.repo.resolve()}"]\ntrust_level = "trusted"\n')
    path = tree.write(
        tree.repo / ".skillshelf",
        '[catalog]\nformat = "xml"\n[requirements]\nallow_project_config = false\nmax_catalog_tokens = 100\n',
    )
    config = tree.load()
    found = _only(config.diagnostics, "CF120")
    assert found.severity is Severity.WARNING and found.path == path and found.line == 4
    assert "allow_project_config" not in config.requirements
    assert config.requirements.get("max_catalog_tokens") == 100  # other requirements still tighten
    assert config.get("catalog.format") == "xml"


def test_a_system_folder_moved_by_the_environment_is_said(tree: Tree) -> None:
    moved = tree.home / "elsewhere"
    env = Env.for_test(cwd=tree.repo, home=tree.home)
    env = type(env)(**{**_fields(env), "environ": {"SKILLSHELF_SYSTEM_CONFIG_DIR": str(moved)}})
    config = load_config(env, user_dir=tree.user)
    found = config.system_moved
    assert found is not None and found.code == "CF121"
    assert not any(d.code == "CF121" for d in config.diagnostics)  # for `config show`, not every run
    assert "SKILLSHELF_SYSTEM_CONFIG_DIR" in found.message and str(moved / "config.toml") in found.message
    assert str(env.system_config_dir / "config.toml") in found.message
    assert found.severity is Severity.INFO and found.fix
    plain = load_config(Env.for_test(cwd=tree.repo, home=tree.home), user_dir=tree.user)
    assert plain.system_moved is None


def _fields(env: Env) -> dict[str, object]:
    import dataclasses

    return {f.name: getattr(env, f.name) for f in dataclasses.fields(env)}


def test_provenance_keys_with_a_dot_are_quoted_as_toml_writes_them(tree: Tree) -> None:
    folder = tree.home / "src" / "my.app"
    tree.write(
        tree.user,
        f'[mcp_servers."docs.local"]\ncommand = "docs-server"\n'
        f'[projects."{folder}"]\ntrust_level = "trusted"\n',
    )
    config = tree.load()
    server = 'mcp_servers."docs.local".command'
    project = f'projects."{folder}".trust_level'
    assert server in config.provenance and project in config.provenance
    assert config.get(server) == "docs-server" and config.get(project) == "trusted"
    assert config.provenance[server].line == 2
    assert "catalog.format" not in config.provenance and config.get("catalog.format") is None

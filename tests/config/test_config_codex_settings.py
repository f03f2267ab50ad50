"""Settings skillshelf shares with Codex: the skills switches, Codex's key names, the project root
(which a project layer cannot move), and how a refused requirement is spelled."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.config import LayerKind, load_config
from skillshelf.config.schema import CODEX_KEYS, SCHEMA, Spec
from skillshelf.env import Env
from skillshelf.workspace import Workspace, WorkspaceOptions


class Tree:
    """A git project with a nested folder, a user config folder and a Codex home under ``tmp_path``."""

    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path / "home"
        self.user = tmp_path / "user-config"
        self.repo = tmp_path / "repo"
        self.sub = self.repo / "sub"
        for folder in (self.home / ".codex", self.user, self.repo / ".git", self.sub):
            folder.mkdir(parents=True, exist_ok=True)
        self.write(
            self.user / "config.toml", f'[projects."{self.repo.resolve()}"]\ntrust_level = "trusted"\n'
        )

    @staticmethod
    def write(path: Path, text: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def load(self, *overrides: str, cwd: Path | None = None):  # type: ignore[no-untyped-def]
        env = Env.for_test(cwd=cwd or self.sub, home=self.home)
        return load_config(env, overrides=overrides, user_dir=self.user, system_dir=self.home / "no-system")

    def codex_config(self, text: str) -> Path:
        return self.write(self.home / ".codex" / "config.toml", text)

    def project_layers(self, config) -> list[Path]:  # type: ignore[no-untyped-def]
        """The folders whose ``.skillshelf/config.toml`` ``config`` read, root first."""
        return [layer.folder.parent for layer in config.layers if layer.kind is LayerKind.PROJECT]


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(tmp_path)


def _spec_at(dotted: str) -> Spec | None:
    spec: Spec | None = SCHEMA
    for part in dotted.split("."):
        spec = spec.children.get(part) if spec is not None else None
    return spec


@pytest.mark.parametrize("codex_key", sorted(CODEX_KEYS))
def test_a_codex_key_points_to_skillshelfs_name_for_it(tree: Tree, codex_key: str) -> None:
    assert _spec_at(CODEX_KEYS[codex_key]) is not None
    config = tree.load(f"{codex_key}=3")
    [finding] = [d for d in config.diagnostics if d.code == "CF103"]
    assert f"`{CODEX_KEYS[codex_key]}`" in finding.fix and "Codex's" in finding.fix
    assert finding.path is None and finding.message.endswith("(given with -c)")


def test_project_root_markers_in_a_project_layer_are_ignored_with_a_warning(tree: Tree) -> None:
    (tree.sub / "MARK").touch()
    tree.write(tree.sub / ".skillshelf" / "config.toml", 'project_root_markers = ["MARK"]\n')
    config = tree.load()
    assert config.project_root == tree.repo.resolve()
    assert config.get("project_root_markers") is None
    [finding] = [d for d in config.diagnostics if d.code == "CF116"]
    assert finding.path == tree.sub / ".skillshelf" / "config.toml" and finding.line == 1


def test_project_root_markers_given_with_c_move_the_root(tree: Tree) -> None:
    (tree.sub / "MARK").touch()
    config = tree.load('project_root_markers=["MARK"]')
    assert config.project_root == tree.sub.resolve()
    assert not [d for d in config.diagnostics if d.code == "CF116"]


def test_a_refused_requirement_is_spelled_as_toml_and_points_to_the_override(tree: Tree) -> None:
    tree.write(
        tree.user / "config.toml",
        '[requirements]\nallow_builtin_skills = false\nallowed_install_sources = ["a"]\n',
    )
    config = tree.load(
        "requirements.allow_builtin_skills=true", 'requirements.allowed_install_sources=["a","b"]'
    )
    findings = [d for d in config.diagnostics if d.code == "CF106"]
    assert [("layer user set false" in d.message, 'layer user set ["a"]' in d.message) for d in findings] == [
        (True, False),
        (False, True),
    ]
    assert all("the -c overrides" in d.fix and "this file" not in d.fix for d in findings)
    assert 'tried to allow "b"' in findings[1].message


def test_the_skills_switches_come_from_codex_unless_skillshelf_sets_them(tree: Tree) -> None:
    assert (tree.load().bundled_skills.on, tree.load().skills_instructions.on) == (True, True)
    codex = tree.write(
        tree.home / ".codex" / "config.toml",
        "[skills]\ninclude_instructions = false\n[skills.bundled]\nenabled = false\n",
    )
    config = tree.load()
    assert not config.bundled_skills.on and not config.skills_instructions.on
    assert config.skills_instructions.source == f"skills.include_instructions = false in {codex}"
    tree.write(tree.user / "config.toml", "[skills.bundled]\nenabled = true\n")
    config = tree.load("skills.include_instructions=true")
    assert config.bundled_skills.on and config.skills_instructions.on
    assert config.bundled_skills.source == f"skills.bundled.enabled = true in {tree.user / 'config.toml'}"
    assert config.skills_instructions.source == "skills.include_instructions = true (-c)"


def _marked_tree(tree: Tree) -> Path:
    """``repo`` (git) holding ``sub`` (an ``.hg`` root) holding ``deep``, each with a project config
    and a skill; ``deep``."""
    deep = tree.sub / "deep"
    (tree.sub / ".hg").mkdir()
    for folder in (tree.repo, tree.sub, deep):
        tree.write(folder / ".skillshelf" / "config.toml", "[catalog]\nbudget_tokens = 100\n")
        skill = f"---\nname: at-{folder.name}\ndescription: a skill\n---\nbody\n"
        tree.write(folder / ".agents" / "skills" / f"at-{folder.name}" / "SKILL.md", skill)
    return deep


def test_codexs_project_root_markers_find_the_project_layer_where_discovery_finds_the_skills(
    tree: Tree,
) -> None:
    deep = _marked_tree(tree)
    tree.codex_config('project_root_markers = [".hg"]\n')
    config = tree.load(cwd=deep)
    assert config.project_root == tree.sub.resolve()
    assert tree.project_layers(config) == [tree.sub, deep]
    assert config.trust.root == tree.sub.resolve()
    options = WorkspaceOptions(include_builtin=False, use_cache=False, memory=False)
    workspace = Workspace.open(Env.for_test(cwd=deep, home=tree.home), options)
    assert sorted(s.name for s in workspace.discovery.skills) == ["at-deep", "at-sub"]
    assert workspace.config.project_root == config.project_root


def test_codexs_empty_project_root_markers_make_the_cwd_the_project_root(tree: Tree) -> None:
    deep = _marked_tree(tree)
    tree.codex_config("project_root_markers = []\n")
    config = tree.load(cwd=deep)
    assert config.project_root == deep.resolve() and config.trust.root == deep.resolve()
    assert tree.project_layers(config) == [deep]


def test_skillshelfs_own_project_root_markers_win_over_codexs(tree: Tree) -> None:
    deep = _marked_tree(tree)
    tree.codex_config('project_root_markers = [".hg"]\n')
    trusted = (tree.user / "config.toml").read_text(encoding="utf-8")
    tree.write(tree.user / "config.toml", f'project_root_markers = [".git"]\n{trusted}')
    config = tree.load(cwd=deep)
    assert config.project_root == tree.repo.resolve()
    assert tree.project_layers(config) == [tree.repo, tree.sub, deep]
    assert config.project_root_markers == (".git",)


def test_a_codex_config_that_does_not_parse_leaves_the_default_project_root(tree: Tree) -> None:
    deep = _marked_tree(tree)
    tree.codex_config('project_root_markers = [".hg"\n')
    assert tree.load(cwd=deep).project_root == tree.repo.resolve()

"""Config layers: order, recursive merge, trust, relative paths, -c overrides, Codex's rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.config import LayerKind, SkillMode, apply_skill_modes, load_config
from skillshelf.config.layers import parse_override
from skillshelf.env import Env
from skillshelf.skills.model import RootOrigin, Scope, Skill
from testkit import git_worktrees


class Tree:
    """A project, a user config folder and a system folder under ``tmp_path``."""

    def __init__(self, tmp_path: Path) -> None:
        self.base = tmp_path
        self.home = tmp_path / "home"
        self.user = tmp_path / "user-config"
        self.system = tmp_path / "system"
        self.repo = tmp_path / "repo"
        self.cwd = self.repo / "a" / "b"
        for folder in (self.home, self.user, self.system, self.repo / ".git", self.cwd):
            folder.mkdir(parents=True, exist_ok=True)

    def write(self, path: Path, text: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def project(self, folder: Path, text: str) -> Path:
        return self.write(folder / ".skillshelf" / "config.toml", text)

    def trust(self) -> None:
        with (self.user / "config.toml").open("a", encoding="utf-8") as handle:
            handle.write(f'\n[projects."{self.repo.resolve()}"]\ntrust_level = "trusted"\n')

    def load(self, *overrides: str, cwd: Path | None = None):  # type: ignore[no-untyped-def]
        env = Env.for_test(cwd=cwd or self.cwd, home=self.home)
        return load_config(env, overrides=overrides, user_dir=self.user, system_dir=self.system)


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(tmp_path)


def test_later_layers_win_and_tables_merge_recursively(tree: Tree) -> None:
    tree.write(
        tree.system / "config.toml",
        '[catalog]\nformat = "xml"\nbudget_tokens = 100\n[select]\nmax_suggestions = 3\n',
    )
    tree.write(tree.user / "config.toml", "[catalog]\nbudget_tokens = 200\n")
    tree.project(tree.repo, "[catalog]\nbudget_tokens = 300\ncontext_window = 1000\n")
    tree.project(tree.repo / "a", "[catalog]\nbudget_tokens = 400\n")
    tree.trust()
    config = tree.load("catalog.context_window=5000")
    assert config.get("catalog") == {"format": "xml", "budget_tokens": 400, "context_window": 5000}
    assert config.get("select.max_suggestions") == 3
    prov = config.provenance["catalog.budget_tokens"]
    assert prov.layer == f"project:{tree.repo.resolve() / 'a'}" and prov.line == 2
    assert prov.overridden == ("system", "user", f"project:{tree.repo.resolve()}")
    assert config.provenance["catalog.context_window"].layer == "runtime"
    kinds = [layer.kind for layer in config.layers if layer.exists]
    assert kinds == [
        LayerKind.SYSTEM,
        LayerKind.USER,
        LayerKind.PROJECT,
        LayerKind.PROJECT,
        LayerKind.RUNTIME,
    ]


def test_untrusted_project_layer_is_shown_with_reason_but_not_applied(tree: Tree) -> None:
    tree.write(tree.user / "config.toml", "[catalog]\nbudget_tokens = 200\n")
    tree.project(
        tree.repo, '[catalog]\nbudget_tokens = 999\n[[skills.config]]\nname = "x"\nmode = "disabled"\n'
    )
    config = tree.load()
    project = [layer for layer in config.layers if layer.kind is LayerKind.PROJECT]
    assert len(project) == 1 and project[0].loaded and not project[0].enabled
    assert "skillshelf trust" in (project[0].disabled_reason or "")
    assert project[0].values["catalog"] == {"budget_tokens": 999}
    assert config.get("catalog.budget_tokens") == 200
    assert config.skill_rules == ()
    assert not config.trusted
    assert "CF109" in {d.code for d in config.diagnostics}


def test_trusting_the_project_applies_its_layer(tree: Tree) -> None:
    tree.project(tree.repo, "[catalog]\nbudget_tokens = 999\n")
    tree.trust()
    config = tree.load()
    assert config.trusted and config.get("catalog.budget_tokens") == 999


def test_untrusted_entry_overrides_a_trusted_parent(tree: Tree) -> None:
    tree.project(tree.repo, "[catalog]\nbudget_tokens = 999\n")
    tree.write(
        tree.user / "config.toml",
        f'[projects."{tree.base.resolve()}"]\ntrust_level = "trusted"\n'
        f'[projects."{tree.repo.resolve()}"]\ntrust_level = "untrusted"\n',
    )
    assert not tree.load().trusted
    tree.write(tree.user / "config.toml", f'[projects."{tree.base.resolve()}"]\ntrust_level = "trusted"\n')
    assert tree.load().trusted


def test_a_project_cannot_trust_itself(tree: Tree) -> None:
    tree.project(
        tree.repo,
        f'[projects."{tree.repo.resolve()}"]\ntrust_level = "trusted"\n[catalog]\nbudget_tokens = 5\n',
    )
    config = tree.load(f'projects."{tree.repo.resolve()}".trust_level="trusted"')
    assert not config.trusted
    assert config.get("catalog.budget_tokens") is None
    assert [d.code for d in config.diagnostics if d.code == "CF107"] == ["CF107", "CF107"]
    from_file = next(d for d in config.diagnostics if d.code == "CF107" and d.path is not None)
    assert from_file.line == 1  # the [projects."..."] header: no line holds `projects` alone


def test_allow_project_config_requirement_keeps_trusted_projects_off(tree: Tree) -> None:
    tree.write(tree.system / "config.toml", "[requirements]\nallow_project_config = false\n")
    tree.project(tree.repo, "[catalog]\nbudget_tokens = 999\n")
    tree.trust()
    config = tree.load()
    assert config.trusted and config.get("catalog.budget_tokens") is None
    project = next(layer for layer in config.layers if layer.kind is LayerKind.PROJECT)
    assert "allow_project_config" in (project.disabled_reason or "")


def test_relative_paths_resolve_against_each_layers_folder(tree: Tree) -> None:
    tree.write(
        tree.user / "config.toml",
        '[skills]\nroots = ["mine", "~/shared", "/abs/x"]\n[install]\ndir = "inst"\n',
    )
    tree.project(tree.repo / "a", '[skills]\nroots = ["../skills"]\n')
    tree.trust()
    config = tree.load()
    assert config.extra_roots == (tree.repo / "a" / "skills",)
    tree.project(tree.repo / "a", "")
    config = tree.load("install.dir=here")
    assert config.extra_roots == (tree.user / "mine", tree.home / "shared", Path("/abs/x"))
    assert config.get("install.dir") == str(tree.cwd / "here")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a.b=1", (("a", "b"), 1)),
        ("a=true", (("a",), True)),
        ('a=["x", "y"]', (("a",), ["x", "y"])),
        ("model.name=gpt-x", (("model", "name"), "gpt-x")),
        ('projects."/p/q.r".trust_level=trusted', (("projects", "/p/q.r", "trust_level"), "trusted")),
        ("a = {b = 2}", (("a",), {"b": 2})),
        ("a=", (("a",), "")),
    ],
)
def test_overrides_are_toml_values_or_raw_strings(
    text: str, expected: tuple[tuple[str, ...], object]
) -> None:
    assert parse_override(text) == expected


def test_bad_override_is_reported_and_others_still_apply(tree: Tree) -> None:
    config = tree.load("no-equals-sign", "=3", "catalog.budget_tokens=7")
    assert config.get("catalog.budget_tokens") == 7
    assert [d.code for d in config.diagnostics] == ["CF108", "CF108"]


def test_codex_skills_config_entries_are_honoured(tree: Tree) -> None:
    skill = tree.base / "skills" / "x" / "SKILL.md"
    tree.write(
        tree.home / ".codex" / "config.toml",
        f'model = "o9"\n[[skills.config]]\nname = "alpha"\nenabled = false\n'
        f'[[skills.config]]\npath = "{skill}"\nenabled = true\n',
    )
    tree.write(tree.user / "config.toml", '[[skills.config]]\nname = "alpha"\nmode = "pinned"\n')
    config = tree.load()
    assert [(r.name, r.path, r.mode) for r in config.skill_rules] == [
        ("alpha", None, SkillMode.DISABLED),
        (None, skill, SkillMode.ENABLED),
        ("alpha", None, SkillMode.PINNED),
    ]
    assert config.skill_rules[0].line == 2
    assert config.get("model") is None, "only Codex's skill rules are read"
    assert not config.diagnostics


def test_builtin_skills_can_be_turned_off_and_requirement_wins(tree: Tree) -> None:
    tree.write(tree.user / "config.toml", "[skills]\nbuiltin = false\n")
    assert tree.load().include_builtin is False
    assert tree.load("skills.builtin=true").include_builtin is True
    tree.write(tree.system / "config.toml", "[requirements]\nallow_builtin_skills = false\n")
    config = tree.load("skills.builtin=true", "requirements.allow_builtin_skills=true")
    assert config.include_builtin is False and config.builtin_enabled is False
    assert "CF106" in {d.code for d in config.diagnostics}


def test_catalog_budget_never_exceeds_the_requirement(tree: Tree) -> None:
    tree.write(tree.system / "config.toml", "[requirements]\nmax_catalog_tokens = 500\n")
    assert tree.load("catalog.budget_tokens=9000").skills_max_context_tokens == 500
    assert tree.load("catalog.budget_tokens=100").skills_max_context_tokens == 100
    assert tree.load("catalog.context_window=64000").context_window == 64000


def _requirement_modes(config) -> dict[str, SkillMode]:  # type: ignore[no-untyped-def]
    """The mode the config's rules give a skill of each name its requirements list."""
    names = {r.name for r in config.skill_rules if r.source.startswith("requirements.") and r.name}
    skills = [
        Skill(
            name=name,
            description="d",
            path=Path("/skills", name, "SKILL.md"),
            root=Path("/skills"),
            scope=Scope.USER,
            origin=RootOrigin.CODEX_USER,
        )
        for name in sorted(names)
    ]
    moded = apply_skill_modes(skills, config.skill_rules)
    return {skill.name: moded.mode_of(skill) for skill in skills}


def _refusals(config) -> list[str]:  # type: ignore[no-untyped-def]
    return [d.message for d in config.diagnostics if d.code == "CF106"]


def test_a_later_layer_cannot_disable_a_skill_an_earlier_one_requires(tree: Tree) -> None:
    tree.write(tree.system / "config.toml", '[requirements]\nrequired_skills = ["sec-review"]\n')
    project = tree.project(tree.repo, '[requirements]\ndisabled_skills = ["sec-review", "other"]\n')
    tree.trust()
    for config in (tree.load(), tree.load('requirements.disabled_skills=["sec-review"]')):
        assert config.requirements["required_skills"] == ["sec-review"]
        assert "sec-review" not in config.requirements["disabled_skills"]
        assert _requirement_modes(config)["sec-review"] is SkillMode.REQUIRED
        assert all("sec-review" in m and "layer system lists it" in m for m in _refusals(config))
    refused = next(d for d in tree.load().diagnostics if d.code == "CF106")
    assert refused.path == project and refused.line == 2
    assert tree.load().requirements["disabled_skills"] == ["other"], "the rest of the list stays"


def test_a_later_layer_cannot_require_a_skill_an_earlier_one_disables(tree: Tree) -> None:
    tree.write(tree.system / "config.toml", '[requirements]\ndisabled_skills = ["risky"]\n')
    tree.write(tree.user / "config.toml", '[requirements]\nrequired_skills = ["risky"]\n')
    config = tree.load('requirements.required_skills=["risky"]')
    assert config.requirements["disabled_skills"] == ["risky"] and not config.requirements["required_skills"]
    assert _requirement_modes(config) == {"risky": SkillMode.DISABLED}
    assert len(_refusals(config)) == 2
    assert all("requirements.required_skills" in m and "layer system" in m for m in _refusals(config))


def test_a_refused_loosening_names_the_value_the_earlier_layer_set_not_the_final_one(tree: Tree) -> None:
    tree.write(tree.system / "config.toml", "[requirements]\nmax_catalog_tokens = 100\n")
    tree.write(tree.user / "config.toml", "[requirements]\nmax_catalog_tokens = 500\n")
    config = tree.load("requirements.max_catalog_tokens=50")
    assert config.max_catalog_tokens == 50
    assert _refusals(config) == [
        "layer user tried to raise it to 500 for requirements.max_catalog_tokens; "
        "requirements cannot be loosened: layer system set 100"
    ]
    tree.write(tree.system / "config.toml", '[requirements]\nallowed_install_sources = ["/a/**", "/b/**"]\n')
    tree.write(tree.user / "config.toml", '[requirements]\nallowed_install_sources = ["/c/**"]\n')
    config = tree.load()
    assert config.requirements["allowed_install_sources"] == []
    assert _refusals(config)[0].endswith('layer system set ["/a/**", "/b/**"]')


def test_a_layer_that_both_requires_and_disables_a_skill_disables_it_with_a_warning(tree: Tree) -> None:
    tree.write(
        tree.user / "config.toml", '[requirements]\nrequired_skills = ["x"]\ndisabled_skills = ["x"]\n'
    )
    config = tree.load()
    assert _requirement_modes(config) == {"x": SkillMode.DISABLED}
    assert len(_refusals(config)) == 1


def test_cwd_outside_a_repo_reads_only_its_own_project_layer(tree: Tree) -> None:
    outside = tree.base / "loose" / "sub"
    tree.project(tree.base / "loose", "[catalog]\nbudget_tokens = 1\n")
    tree.project(outside, "[catalog]\nbudget_tokens = 2\n")
    config = tree.load(cwd=outside)
    assert [layer.path for layer in config.layers if layer.kind is LayerKind.PROJECT] == [
        outside / ".skillshelf" / "config.toml"
    ]


def test_config_to_dict_is_plain_data(tree: Tree) -> None:
    tree.write(tree.user / "config.toml", '[catalog]\nformat = "markdown"\n')
    data = tree.load().to_dict(explain=True)
    assert data["values"] == {"catalog": {"format": "markdown"}}
    assert data["provenance"]["catalog.format"]["layer"] == "user"  # type: ignore[index]


def test_project_root_markers_from_the_user_layer_move_the_root(tree: Tree) -> None:
    (tree.repo / "a" / ".hg").mkdir()
    tree.write(tree.user / "config.toml", 'project_root_markers = [".hg"]\n')
    tree.project(tree.repo, "[catalog]\nbudget_tokens = 1\n")
    tree.project(tree.repo / "a", "[catalog]\nbudget_tokens = 2\n")
    config = tree.load()
    assert config.project_root == (tree.repo / "a").resolve()
    assert [layer.folder.parent for layer in config.layers if layer.kind is LayerKind.PROJECT] == [
        tree.repo / "a"
    ]


def test_system_folder_comes_from_the_environment_when_not_given(tree: Tree) -> None:
    import dataclasses
    from types import MappingProxyType

    tree.write(tree.system / "config.toml", "[select]\nmax_suggestions = 2\n")
    env = Env.for_test(cwd=tree.cwd, home=tree.home)
    assert load_config(env, user_dir=tree.user).get("select.max_suggestions") is None
    env = dataclasses.replace(
        env, environ=MappingProxyType({"SKILLSHELF_SYSTEM_CONFIG_DIR": str(tree.system)})
    )
    assert load_config(env, user_dir=tree.user).get("select.max_suggestions") == 2


def test_instruction_settings_are_exposed_for_the_context(tree: Tree) -> None:
    tree.write(
        tree.user / "config.toml",
        '[instructions]\nprofile = "claude"\nmax_bytes = 100\nfallback_filenames = ["TEAM.md"]\n',
    )
    config = tree.load()
    assert config.instructions_profile == "claude"
    assert config.instructions_max_bytes == 100
    assert config.instructions_fallback_filenames == ("TEAM.md",)
    empty = tree.load("instructions.profile=cursor")
    assert empty.instructions_profile == "claude", "a bad -c value is dropped, the user's value stays"
    assert "CF102" in {d.code for d in empty.diagnostics}


def test_runtime_flag_can_turn_project_config_off_but_not_on(tree: Tree) -> None:
    tree.project(tree.repo, "[catalog]\nbudget_tokens = 999\n")
    tree.trust()
    assert tree.load("requirements.allow_project_config=false").get("catalog.budget_tokens") is None
    tree.write(tree.system / "config.toml", "[requirements]\nallow_project_config = false\n")
    config = tree.load("requirements.allow_project_config=true")
    assert config.get("catalog.budget_tokens") is None
    assert config.requirements["allow_project_config"] is False


def test_a_git_worktree_is_trusted_by_its_main_checkouts_entry_unless_it_has_its_own(tree: Tree) -> None:
    """As Codex trusts a worktree by its main checkout: the worktrees agents make for each task
    need no ``skillshelf trust`` of their own; an entry for the worktree itself still decides."""
    main, worktree = tree.base / "main", tree.base / "wt"
    tree.project(main, "[catalog]\nbudget_tokens = 999\n")
    git_worktrees(main, worktree)
    assert not tree.load(cwd=worktree).trusted

    tree.write(tree.user / "config.toml", f'[projects."{main.resolve()}"]\ntrust_level = "trusted"\n')
    config = tree.load(cwd=worktree)
    assert config.trusted and config.get("catalog.budget_tokens") == 999
    assert "main checkout" in config.trust.reason

    with (tree.user / "config.toml").open("a", encoding="utf-8") as handle:
        handle.write(f'[projects."{worktree.resolve()}"]\ntrust_level = "untrusted"\n')
    assert not tree.load(cwd=worktree).trusted


def test_the_trust_command_a_finding_offers_is_one_shell_word_whatever_the_folder_name(
    tmp_path: Path,
) -> None:
    import shlex

    from skillshelf.config.trust import decide_trust

    root = tmp_path / "my proj $(touch PASTED)"
    (root / ".git").mkdir(parents=True)
    reason = decide_trust(root, ()).reason
    command = reason.split("`")[1]
    assert shlex.split(command) == ["skillshelf", "trust", str(root.resolve())]


def test_a_trust_decision_keeps_its_cause_and_fix_apart_and_says_both_as_its_reason(tree: Tree) -> None:
    import shlex

    tree.project(tree.repo, "[catalog]\nbudget_tokens = 1\n")
    command = f"skillshelf trust {shlex.quote(str(tree.repo.resolve()))}"
    config = tree.load()
    trust = config.trust
    assert (trust.cause, trust.fix) == (
        "project not trusted",
        f"run `{command}` to let its config take effect",
    )
    assert trust.reason == f"project not trusted; run `{command}` to let its config take effect"
    [layer] = [layer for layer in config.layers if layer.kind is LayerKind.PROJECT]
    assert (layer.disabled_cause, layer.disabled_fix, layer.disabled_reason) == (
        trust.cause,
        trust.fix,
        trust.reason,
    )
    assert layer.to_dict()["disabled_reason"] == trust.to_dict()["reason"] == trust.reason

    tree.write(tree.user / "config.toml", f'[projects."{tree.repo.resolve()}"]\ntrust_level = "untrusted"\n')
    trust = tree.load().trust
    assert (trust.cause, trust.fix) == ("marked untrusted in the user layer", f"run `{command}`")
    assert trust.reason == f"marked untrusted in the user layer; run `{command}`"
    tree.write(tree.user / "config.toml", "")
    tree.trust()
    trust = tree.load().trust
    assert (trust.cause, trust.fix, trust.reason) == ("trusted in the user layer", None, trust.cause)

"""Per-skill modes: what each mode does, selectors, precedence, required skills."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.config import SkillMode, SkillRule, apply_skill_modes, load_config
from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env
from skillshelf.errors import RequiredSkillError
from skillshelf.skills.model import RootOrigin, Scope, Skill
from skillshelf.workspace import Workspace, WorkspaceOptions


def _skill(name: str, folder: str = "") -> Skill:
    path = Path("/skills") / (folder or name) / "SKILL.md"
    return Skill(
        name=name,
        description=f"{name} does things",
        path=path,
        root=Path("/skills"),
        scope=Scope.USER,
        origin=RootOrigin.CODEX_USER,
    )


SKILLS = (
    _skill("alpha"),
    _skill("beta"),
    _skill("gamma"),
    _skill("delta"),
    _skill("eps"),
    _skill("beta", "beta-2"),
)


def _rule(mode: str, name: str | None = None, path: str | None = None) -> SkillRule:
    return SkillRule(mode=SkillMode(mode), name=name, path=Path(path) if path else None)


def test_each_mode_puts_skills_where_it_says() -> None:
    rules = [
        _rule("disabled", "alpha"),
        _rule("name-only", "beta"),
        _rule("manual", "gamma"),
        _rule("pinned", "delta"),
        _rule("required", "eps"),
    ]
    moded = apply_skill_modes(SKILLS, rules)
    names = lambda group: [s.name for s in group]  # noqa: E731
    assert names(moded.visible) == ["delta", "eps"]
    assert names(moded.name_only) == ["beta", "beta"]
    assert names(moded.manual) == ["gamma"]
    assert names(moded.pinned) == ["delta"] and names(moded.required) == ["eps"]
    assert names(moded.disabled) == ["alpha"]
    assert names(moded.loadable) == ["beta", "gamma", "delta", "eps", "beta"]
    catalog = moded.catalog_skills()
    assert [(s.name, s.description) for s in catalog] == [
        ("beta", ""),
        ("delta", "delta does things"),
        ("eps", "eps does things"),
        ("beta", ""),
    ]
    moded.check_required()


def test_path_rule_selects_one_skill_and_last_match_wins() -> None:
    rules = [
        _rule("disabled", "beta"),
        _rule("enabled", path="/skills/beta-2"),
        _rule("manual", path="/skills/beta/SKILL.md"),
    ]
    moded = apply_skill_modes(SKILLS, rules)
    assert moded.mode_of(SKILLS[1]) is SkillMode.MANUAL
    assert moded.mode_of(SKILLS[5]) is SkillMode.ENABLED
    later = apply_skill_modes(SKILLS, [*rules, _rule("disabled", "beta")])
    assert [s.path for s in later.disabled] == [SKILLS[1].path, SKILLS[5].path]


def test_missing_required_skill_raises_with_where_it_was_required() -> None:
    rule = SkillRule(mode=SkillMode.REQUIRED, name="zeta", file=Path("/cfg/config.toml"), line=4)
    moded = apply_skill_modes(SKILLS, [rule, _rule("required", "alpha")])
    assert moded.missing_required == (rule,)
    broken = Diagnostic(
        code="SK101",
        severity=Severity.ERROR,
        message="broken YAML",
        fix="fix it",
        path=Path("/skills/zeta/SKILL.md"),
    )
    with pytest.raises(RequiredSkillError) as info:
        moded.check_required([broken])
    assert info.value.code == "SK410"
    assert "zeta" in info.value.message and "/cfg/config.toml:4" in info.value.message
    assert "broken YAML" in info.value.message


def test_a_later_rule_can_relax_an_ordinary_required_rule() -> None:
    moded = apply_skill_modes(SKILLS, [_rule("required", "zeta"), _rule("enabled", "zeta")])
    assert moded.missing_required == ()


def test_requirement_lists_override_every_rule(tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    (user / "config.toml").write_text(
        '[requirements]\ndisabled_skills = ["alpha"]\nrequired_skills = ["zeta"]\n'
        '[[skills.config]]\nname = "zeta"\nmode = "disabled"\n',
        encoding="utf-8",
    )
    env = Env.for_test(cwd=tmp_path, home=tmp_path)
    config = load_config(env, user_dir=user, overrides=['skills.config=[{name = "alpha", mode = "pinned"}]'])
    moded = apply_skill_modes(SKILLS, config.skill_rules)
    assert [s.name for s in moded.disabled] == ["alpha"]
    refused = [d for d in config.diagnostics if d.code == "CF106"]
    assert len(refused) == 2 and refused[0].line == 4 and refused[1].path is None
    with pytest.raises(RequiredSkillError):
        moded.check_required()


def test_a_disabled_skill_is_explained_by_the_entry_that_disabled_it(tmp_path: Path) -> None:
    config_file = tmp_path / "config.toml"
    rules = [
        SkillRule(
            mode=SkillMode.DISABLED, name="alpha", source=f"user ({config_file})", file=config_file, line=3
        ),
        SkillRule(
            mode=SkillMode.DISABLED, path=Path("/skills/gamma"), source="project (x)", file=config_file
        ),
        SkillRule(mode=SkillMode.DISABLED, name="delta", source="runtime"),
    ]
    moded = apply_skill_modes(SKILLS, rules)
    error = moded.disabled_error("alpha")
    assert error is not None and error.code == "SK405" and error.disabled_by == f"{config_file}:3"
    assert "skillshelf enable alpha" in error.hint
    assert moded.disabled_error("$alpha") is not None
    by_path = moded.disabled_error("/skills/gamma/SKILL.md")
    assert by_path is not None and "skillshelf enable --project /skills/gamma" in by_path.hint
    runtime = moded.disabled_error("delta")
    assert runtime is not None and "-c" in runtime.disabled_by and "-c" in runtime.hint
    assert moded.disabled_error("eps") is None  # enabled: nothing to explain
    assert moded.disabled_error("nosuch") is None


def test_a_name_another_skill_still_answers_to_is_not_reported_disabled() -> None:
    moded = apply_skill_modes(SKILLS, [_rule("disabled", path="/skills/beta-2")])
    assert moded.disabled_error("beta") is None
    assert moded.disabled_error("/skills/beta-2") is not None


def test_a_requirement_names_the_file_and_line_that_disabled_the_skill(tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    (user / "config.toml").write_text(
        '[catalog]\nbudget_tokens = 10\n[requirements]\ndisabled_skills = ["alpha"]\n', encoding="utf-8"
    )
    config = load_config(Env.for_test(cwd=tmp_path, home=tmp_path), user_dir=user)
    error = apply_skill_modes(SKILLS, config.skill_rules).disabled_error("alpha")
    assert error is not None and error.disabled_by == f"{user / 'config.toml'}:4"
    assert "requirements.disabled_skills" in error.hint


def _required_by(mode: str, name: str) -> SkillRule:
    key = "required_skills" if mode == "required" else "disabled_skills"
    return SkillRule(mode=SkillMode(mode), name=name, source=f"requirements.{key}")


@pytest.mark.parametrize(
    ("kept", "entry"), [("required", "disabled"), ("disabled", "pinned"), ("disabled", "enabled")]
)
def test_a_path_entry_a_requirement_overrules_is_refused_with_a_warning(kept: str, entry: str) -> None:
    by_path = SkillRule(
        mode=SkillMode(entry), path=Path("/skills/gamma"), file=Path("/cfg/config.toml"), line=7
    )
    moded = apply_skill_modes(SKILLS, [by_path, _required_by(kept, "gamma")])
    assert moded.mode_of(SKILLS[2]) is SkillMode(kept)
    (refused,) = moded.diagnostics
    assert refused.code == "CF106" and refused.severity is Severity.WARNING
    assert (refused.path, refused.line) == (Path("/cfg/config.toml"), 7)
    assert f"requirements.{kept}_skills keeps it {kept}" in refused.message and "'gamma'" in refused.message


def test_a_path_entry_that_agrees_with_the_requirements_or_misses_the_skill_gives_no_warning() -> None:
    rules = [
        _rule("pinned", path="/skills/gamma"),
        _rule("disabled", path="/skills/alpha"),
        _rule("disabled", path="/skills/delta"),
        _required_by("required", "gamma"),
        _required_by("disabled", "delta"),
    ]
    moded = apply_skill_modes(SKILLS, rules)
    assert moded.diagnostics == ()
    assert [s.name for s in moded.disabled] == ["alpha", "delta"]


def test_a_codex_path_entry_that_disables_a_required_skill_warns_in_the_workspace(tmp_path: Path) -> None:
    home = tmp_path / "home"
    skill = home / ".codex" / "skills" / "pdf"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: pdf\ndescription: Merge PDF files.\n---\nbody\n", "utf-8")
    (home / ".codex" / "config.toml").write_text(
        f'[[skills.config]]\npath = "{skill / "SKILL.md"}"\nenabled = false\n', encoding="utf-8"
    )
    user = home / ".config" / "skillshelf"
    user.mkdir(parents=True)
    (user / "config.toml").write_text('[requirements]\nrequired_skills = ["pdf"]\n', encoding="utf-8")
    (tmp_path / "work").mkdir()
    env = Env.for_test(cwd=tmp_path / "work", home=home)
    workspace = Workspace.open(env, WorkspaceOptions(include_builtin=False, use_cache=False))
    assert [s.name for s in workspace.modes.required] == ["pdf"]
    refused = [d for d in workspace.config.diagnostics if d.code == "CF106"]
    assert len(refused) == 1 and refused[0].path == home / ".codex" / "config.toml" and refused[0].line == 1
    assert refused[0] in workspace.diagnostics


@pytest.mark.parametrize(
    ("requirements", "to_check"),
    [
        ('required_skills = ["x"]', [("/s/off", "disabled")]),
        ('disabled_skills = ["x"]', [("/s/pin", "pinned"), ("/s/on", "enabled")]),
        ("max_catalog_tokens = 100", []),
    ],
)
def test_the_config_names_the_path_entries_a_requirement_may_overrule(
    tmp_path: Path, requirements: str, to_check: list[tuple[str, str]]
) -> None:
    user = tmp_path / "user"
    user.mkdir()
    entries = [("path", "/s/off", "disabled"), ("path", "/s/pin", "pinned"), ("name", "x", "disabled")]
    entries += [("path", "/s/on", "enabled")]
    (user / "config.toml").write_text(
        f"[requirements]\n{requirements}\n"
        + "".join(f'[[skills.config]]\n{key} = "{value}"\nmode = "{mode}"\n' for key, value, mode in entries),
        encoding="utf-8",
    )
    config = load_config(Env.for_test(cwd=tmp_path, home=tmp_path), user_dir=user)
    checked = [(str(rule.path), rule.mode.value) for rule in config.path_rules_to_check]
    assert checked == to_check

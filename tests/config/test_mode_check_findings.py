"""``mode_findings`` makes the warnings of `enable` / `disable` as coded findings itself: each has
its code, message, fix and file where it is made, with no command in between to read them."""

from __future__ import annotations

import shlex
from pathlib import Path

from skillshelf.config import SkillMode
from skillshelf.config.mode_check import mode_findings
from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env
from skillshelf.workspace import Workspace, WorkspaceOptions

OPTIONS = WorkspaceOptions(include_builtin=False, use_cache=False, memory=False)


def _env(
    tmp_path: Path, *, user: str = "", codex: str = "", project: str | None = None, repo: str = "repo"
) -> Env:
    """A repository (named ``repo``) with the skill foo, the cwd; the configs given (``project``:
    its own)."""
    repo_folder = tmp_path / repo
    folder = repo_folder / ".agents" / "skills" / "foo"
    folder.mkdir(parents=True)
    (repo_folder / ".git").mkdir()
    (folder / "SKILL.md").write_text("---\nname: foo\ndescription: the foo skill\n---\nb\n", encoding="utf-8")
    env = Env.for_test(cwd=repo_folder, home=tmp_path / "home")
    configs = ((env.dirs.config, user), (env.codex_home, codex), (repo_folder / ".skillshelf", project))
    for config, text in configs:
        if text is not None:
            config.mkdir(parents=True, exist_ok=True)
            (config / "config.toml").write_text(text, encoding="utf-8")
    return env


def _findings(
    env: Env, written: Path, wanted: SkillMode, *, with_config: bool = True
) -> tuple[Diagnostic, ...]:
    workspace = Workspace.open(env, OPTIONS)
    return mode_findings(
        target="foo",
        wanted=wanted,
        skills=workspace.discovery.skills,
        moded=workspace.modes,
        written=written,
        layers=workspace.config.layers,
        command="enable foo" if wanted is SkillMode.ENABLED else "disable foo",
        config_findings=workspace.config.diagnostics if with_config else (),
    )


def test_a_requirement_that_still_decides_is_cf123_with_its_fix_apart_from_its_message(
    tmp_path: Path,
) -> None:
    user = '[requirements]\ndisabled_skills = ["foo"]\n\n[[skills.config]]\nname = "foo"\nenabled = true\n'
    env = _env(tmp_path, user=user)
    written = env.dirs.config / "config.toml"
    [finding] = _findings(env, written, SkillMode.ENABLED)
    assert (finding.code, finding.severity, finding.path) == ("CF123", Severity.WARNING, written)
    assert finding.message == (
        f"foo is still disabled: `requirements.disabled_skills` ({written}:2) keeps it disabled "
        "whatever the entries say"
    )
    assert finding.fix == "remove it from that list there (an administrator's file needs its owner)"


def test_codexs_own_entry_is_cf124_with_no_file_of_skillshelfs(tmp_path: Path) -> None:
    entry = '[[skills.config]]\nname = "foo"\nenabled = {}\n'
    env = _env(tmp_path, user=entry.format("true"), codex=entry.format("false"))
    [finding] = _findings(env, env.dirs.config / "config.toml", SkillMode.ENABLED)
    assert (finding.code, finding.path) == ("CF124", None)
    assert finding.message.startswith("Codex itself still keeps foo disabled: the entry at ")
    assert finding.fix == "set `enabled = true` there (or remove it)"


def test_an_untrusted_projects_file_is_cf109_with_the_fix_of_the_configs_own_finding(tmp_path: Path) -> None:
    env = _env(tmp_path, project='[[skills.config]]\nname = "foo"\nenabled = false\n')
    written = env.cwd / ".skillshelf" / "config.toml"
    [finding] = _findings(env, written, SkillMode.DISABLED)
    assert (finding.code, finding.path) == ("CF109", written)
    assert finding.message == f"{written} is not in effect: project not trusted"
    assert finding.fix == f"run `skillshelf trust {env.cwd}` if you trust this project"
    [alone] = _findings(env, written, SkillMode.DISABLED, with_config=False)
    assert alone.code == "CF109" and alone.message.startswith(
        f"{written} is not in effect: project not trusted; "
    )
    assert alone.fix.startswith("run `skillshelf config show`")


def test_an_untrusted_projects_cf109_says_its_cause_whole_whatever_its_folder_is_named(
    tmp_path: Path,
) -> None:
    """The cause and the command that trusts the project come apart as the trust decision made
    them: words of that command in the folder's name cut nothing."""
    env = _env(
        tmp_path, project='[[skills.config]]\nname = "foo"\nenabled = false\n', repo="a; run `skillshelf b"
    )
    written = env.cwd / ".skillshelf" / "config.toml"
    [finding] = _findings(env, written, SkillMode.DISABLED)
    assert finding.message == f"{written} is not in effect: project not trusted"
    assert finding.fix == f"run `skillshelf trust {shlex.quote(str(env.cwd))}` if you trust this project"
    [alone] = _findings(env, written, SkillMode.DISABLED, with_config=False)
    assert alone.message == (
        f"{written} is not in effect: project not trusted; "
        f"run `skillshelf trust {shlex.quote(str(env.cwd))}` to let its config take effect"
    )


def test_a_project_config_not_allowed_is_cf109_with_its_reason_whole(tmp_path: Path) -> None:
    trusted = f'[projects."{(tmp_path / "repo").resolve()}"]\ntrust_level = "trusted"\n'
    env = _env(tmp_path, user=f"[requirements]\nallow_project_config = false\n{trusted}", project="")
    written = env.cwd / ".skillshelf" / "config.toml"
    [finding] = _findings(env, written, SkillMode.DISABLED)
    assert finding.message == (
        f"{written} is not in effect: requirements.allow_project_config = false (system, user or -c layer)"
    )


def test_an_entry_that_takes_effect_gives_no_finding(tmp_path: Path) -> None:
    env = _env(tmp_path, user='[[skills.config]]\nname = "foo"\nenabled = false\n')
    assert _findings(env, env.dirs.config / "config.toml", SkillMode.DISABLED) == ()

"""``requirements.allowed_install_sources``: install and update fetch only from allowed sources."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from install_helpers import (
    REGULAR,
    SKILL_MD,
    CountingGit,
    archive_with,
    commit_all,
    init_repo,
    make_env,
    run_cli,
    tree,
    write_skill,
)

from skillshelf.env import Env
from skillshelf.install import install_skill, read_lock, update_skills
from skillshelf.install.allowed import SourceNotAllowedError, SourcePolicy, matched_text
from skillshelf.install.many import install_all
from skillshelf.install.sources import Source, parse_source
from testkit import IsolatedHome

ACME = '["https://github.com/acme/*"]'


def _system_config(env: Env, allowed: str) -> Path:
    path = env.system_config_dir / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"[requirements]\nallowed_install_sources = {allowed}\n", encoding="utf-8")
    return path


def _skills_root() -> Path:
    return Path.home() / ".agents" / "skills"


def _refused(env: Env, source: str, **kwargs: object) -> SourceNotAllowedError:
    """The error installing ``source`` raises, having written nothing."""
    before = tree(Path.home())
    with pytest.raises(SourceNotAllowedError) as caught:
        install_skill(source, env=env, **kwargs)  # type: ignore[arg-type]
    assert caught.value.code == "IS106"
    assert tree(Path.home()) == before
    return caught.value


@pytest.mark.parametrize(
    ("location", "matched"),
    [
        ("https://x-access-token@GitHub.COM/acme/tools.git", "https://github.com/acme/tools.git"),
        ("https://github.com/acme/my%20tools.git", "https://github.com/acme/my tools.git"),
        ("https://evil.example?.acme.com/x.git", "https://evil.example/?.acme.com/x.git"),
        ("https://github.com@evil.example/acme/x.git", "https://evil.example/acme/x.git"),
        ("git@github.com:acme/tools.git", "git@github.com:acme/tools.git"),
        ("https://github.com/acme/..%2Fevil/x.git", None),
        ("https://github.com/acme/%2e%2e/evil/x.git", None),
        ("git@github.com:acme/../evil/x.git", None),
        ("file://otherhost/srv/x.git", None),
    ],
)
def test_a_git_url_is_matched_without_its_user_part_and_dot_segments_match_nothing(
    location: str, matched: str | None
) -> None:
    assert matched_text(Source(kind="git", location=location, ref="v1", subdir="skills/x")) == matched


def test_a_local_folder_is_matched_as_its_real_absolute_path(tmp_path: Path) -> None:
    real = write_skill(tmp_path / "real" / "pdf", "pdf")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    parsed = parse_source("link/pdf", cwd=tmp_path)
    assert matched_text(parsed) == real.resolve().as_posix()
    repo = init_repo(tmp_path / "repo")
    assert matched_text(Source(kind="git", location=repo.as_uri())) == repo.resolve().as_posix()


@pytest.mark.parametrize(
    ("pattern", "location", "allowed"),
    [
        ("https://github.com/acme/*", "https://github.com/acme/tools.git", True),
        ("https://github.com/acme/*", "https://github.com/acme/tools", True),
        ("https://github.com/acme/*", "https://github.com/acme/tools/archive/v1.zip", False),
        ("https://github.com/acme/**", "https://github.com/acme/tools/archive/v1.zip", True),
        ("https://github.com/acme/*", "https://github.com/acme-evil/tools.git", False),
        ("https://github.com/acme/*", "https://github.com/ACME/tools.git", False),
        ("https://github.com/acme/*", "https://github.com@evil.example/acme/x.git", False),
        ("https://*.acme.com/**", "https://git.acme.com/team/x.git", True),
        ("https://*.acme.com/**", "https://evil.example/x.acme.com/y.git", False),
        ("https://*.acme.com/**", "https://evil.example?.acme.com/y.git", False),
        ("https://github.com/acme/tool?", "https://github.com/acme/tools", True),
        ("https://github.com/acme/[!t]*", "https://github.com/acme/tools", False),
    ],
)
def test_patterns_are_case_sensitive_globs_whose_star_stays_within_a_path_segment(
    pattern: str, location: str, allowed: bool
) -> None:
    policy = SourcePolicy(patterns=(pattern,))
    kind = "archive" if location.endswith(".zip") else "git"
    assert policy.allows(Source(kind=kind, location=location)) is allowed


def test_install_from_a_folder_outside_the_patterns_is_refused_naming_them_and_their_file(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    config = _system_config(env, ACME)
    evil = write_skill(tmp_path / "src" / "evil", "evil")
    for dry_run in (False, True):
        error = _refused(env, str(evil), dry_run=dry_run)
        assert "https://github.com/acme/*" in error.message and "https://github.com/acme/*" in error.hint
        assert f"{config}:2 (the system layer)" in error.message
        assert str(config) in error.hint
        assert error.message.startswith(f"{evil.resolve().as_posix()} is not an allowed install source")
    with pytest.raises(SourceNotAllowedError):
        install_all(str(evil.parent), env=env)
    assert tree(_skills_root()) == []


def test_a_folder_matching_a_pattern_installs(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    env = make_env(tmp_path, isolated_home.home)
    team = (tmp_path / "team").resolve()
    _system_config(env, f'["https://github.com/acme/*", "{team.as_posix()}/**"]')
    result = install_skill(str(write_skill(team / "nested" / "pdf", "pdf")), env=env)
    assert (result.path / "SKILL.md").is_file()
    assert install_all(str(team / "nested"), env=env).failed == ()
    _refused(env, str(write_skill(tmp_path / "other" / "pdf", "pdf")), name="other")


def test_a_local_git_repository_is_checked_before_any_clone_with_its_ref_and_subdir_left_out(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    repo = init_repo(tmp_path / "repos" / "upstream")
    write_skill(repo / "skills" / "pdf", "pdf")
    commit_all(repo, "one")
    git = CountingGit(environ=env.environ)
    _system_config(env, ACME)
    for source in (f"{repo.as_uri()}@main#skills/pdf", f"{repo}@main#skills/pdf"):
        _refused(env, source, git=git)
    assert git.calls == []

    _system_config(env, f'["{(tmp_path / "repos").resolve().as_posix()}/*"]')
    result = install_skill(f"{repo.as_uri()}@main#skills/pdf", env=env, git=git)
    assert (result.path / "SKILL.md").is_file() and git.calls == ["clone"]


def test_remote_git_and_archive_urls_outside_the_patterns_are_refused_before_any_fetch(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    _system_config(env, ACME)
    git = CountingGit(environ=env.environ)
    for source in (
        "https://127.0.0.1:9/evil/skills.git#skills/x",
        "https://127.0.0.1:9/evil/skill.zip",
        "gh:evil/skills@v1#skills/x",
        "https://token:hunter2-secret@127.0.0.1:9/evil/skills.git",
    ):
        error = _refused(env, source, git=git)
        assert "hunter2" not in f"{error.message} {error.hint}" and "token" not in error.message
    assert git.calls == []


def test_a_local_archive_is_matched_as_its_path(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    env = make_env(tmp_path, isolated_home.home)
    (tmp_path / "dl").mkdir()
    archive = archive_with(tmp_path / "dl" / "zipped.zip", [("zipped/SKILL.md", SKILL_MD, REGULAR)])
    _system_config(env, ACME)
    _refused(env, str(archive))
    _system_config(env, f'["{archive.parent.resolve().as_posix()}/*.zip"]')
    assert (install_skill(str(archive), env=env).path / "SKILL.md").is_file()


def test_an_empty_list_allows_nothing_and_an_absent_key_everything(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    skill = write_skill(tmp_path / "src" / "pdf", "pdf")
    config = _system_config(env, "[]")
    error = _refused(env, str(skill))
    assert "is empty in" in error.message and str(config) in error.hint
    config.write_text("[requirements]\nrequired_skills = []\n", encoding="utf-8")
    assert (install_skill(str(skill), env=env).path / "SKILL.md").is_file()


def test_a_later_layer_that_drops_a_pattern_is_obeyed_and_named(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    one, two = (tmp_path / "one").resolve(), (tmp_path / "two").resolve()
    _system_config(env, f'["{one.as_posix()}/*", "{two.as_posix()}/*"]')
    user = env.dirs.config / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(f'[requirements]\nallowed_install_sources = ["{two.as_posix()}/*"]\n', encoding="utf-8")
    error = _refused(env, str(write_skill(one / "pdf", "pdf")))
    assert f"{user}:2 (the user layer)" in error.message
    assert (install_skill(str(write_skill(two / "pdf", "pdf")), env=env).path / "SKILL.md").is_file()


def test_update_fails_a_skill_whose_source_a_new_policy_no_longer_allows(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    skill = write_skill(tmp_path / "src" / "pdf", "pdf", body="v1")
    installed = install_skill(str(skill), env=env)
    write_skill(skill, "pdf", body="v2")
    shutil.rmtree(installed.path)  # a missing folder is installed again by update: not from here
    _system_config(env, ACME)
    for check in (True, False):
        (result,) = update_skills(env=env, check=check)
        assert result.status == "failed" and result.message.startswith("IS106: ")
        assert "https://github.com/acme/*" in result.message and "skillshelf remove pdf" in result.message
    assert not installed.path.exists()


def test_a_pack_whose_source_is_no_longer_allowed_gains_no_skill_on_update(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    repo = init_repo(tmp_path / "pack")
    write_skill(repo / "skills" / "alpha", "alpha")
    commit_all(repo, "one")
    root = install_all(f"{repo.as_uri()}#skills", env=env).installed[0].path.parent
    write_skill(repo / "skills" / "gamma", "gamma")
    commit_all(repo, "gamma joins")
    _system_config(env, ACME)
    git = CountingGit(environ=env.environ)
    results = update_skills(env=env, git=git)
    assert {r.name: r.status for r in results} == {"alpha": "failed"}
    assert git.calls == [] and not (root / "gamma").exists()
    assert read_lock(root).get("gamma") is None


def test_the_install_command_exits_1_with_the_code_and_fix(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    system = tmp_path / "sys"
    system.mkdir()
    (system / "config.toml").write_text(
        f"[requirements]\nallowed_install_sources = {ACME}\n", encoding="utf-8"
    )
    monkeypatch.setenv("SKILLSHELF_SYSTEM_CONFIG_DIR", str(system))
    evil = write_skill(tmp_path / "src" / "evil", "evil")
    proc = run_cli(tmp_path, "install", str(evil), "--for", "codex")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "IS106" in proc.stderr and "https://github.com/acme/*" in proc.stderr
    assert str(system / "config.toml") in proc.stderr
    assert not any(Path(os.environ["HOME"]).rglob("evil"))


def test_a_value_that_is_not_a_list_of_strings_allows_nothing_unless_its_layer_is_off(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".skillshelf").mkdir()
    bad = '[requirements]\nallowed_install_sources = "https://github.com/acme/*"\n'
    (project / ".skillshelf" / "config.toml").write_text(bad, encoding="utf-8")
    env = make_env(tmp_path, isolated_home.home, cwd=project)
    skill = write_skill(tmp_path / "src" / "pdf", "pdf")
    assert (install_skill(str(skill), env=env).path / "SKILL.md").is_file()  # untrusted: not in effect

    config = _system_config(env, '"https://github.com/acme/*"')
    error = _refused(env, str(skill), name="again")
    assert "cannot be read" in error.message and f"{config}:2 (the system layer)" in error.message
    assert "list of strings" in error.hint

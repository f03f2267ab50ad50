"""``requirements.allowed_install_sources`` fails closed when a layer that may set it cannot be read."""

from __future__ import annotations

from pathlib import Path

import pytest
from install_helpers import make_env, run_cli, tree, write_skill

from skillshelf.env import Env
from skillshelf.install import install_skill
from skillshelf.install.allowed import SourceNotAllowedError, configured_policy
from testkit import IsolatedHome

POLICY = '[requirements]\nallowed_install_sources = ["/opt/skills/**"]\n'


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _refused(env: Env, source: Path) -> SourceNotAllowedError:
    before = tree(Path.home())
    with pytest.raises(SourceNotAllowedError) as caught:
        install_skill(str(source), env=env, target="codex")
    assert caught.value.code == "IS106"
    assert tree(Path.home()) == before
    return caught.value


def test_a_syntax_error_in_the_user_layer_refuses_every_source_naming_the_file_and_line(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    config = _write(env.dirs.config / "config.toml", POLICY + "[ui\n")
    error = _refused(env, write_skill(tmp_path / "src" / "s1", "s1"))
    assert f"{config}:3 (the user layer) cannot be read (CF100: TOML syntax error" in error.message
    assert "fix the TOML syntax on that line" in error.hint

    config.write_text(POLICY.replace("/opt/skills/**", f"{tmp_path.resolve()}/src/*"), encoding="utf-8")
    assert install_skill(str(tmp_path / "src" / "s1"), env=env, target="codex").path.is_dir()


def test_a_system_layer_that_cannot_be_parsed_allows_nothing(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    config = _write(env.system_config_dir / "config.toml", '[requirements\nallowed_install_sources = ["x"]\n')
    policy = configured_policy(env)
    assert policy.patterns == () and policy.file == str(config) and policy.layer == "system"
    assert "the system layer" in _refused(env, write_skill(tmp_path / "src" / "s1", "s1")).message


def test_a_user_config_that_is_not_utf8_allows_nothing_until_it_is_fixed(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    config = env.dirs.config / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_bytes(b"[ui]\ntheme = '\xff'\n")
    error = _refused(env, write_skill(tmp_path / "src" / "s1", "s1"))
    assert "CF101" in error.message and "UTF-8" in error.hint
    config.write_text("[ui]\n", encoding="utf-8")
    assert configured_policy(env).patterns is None


def test_a_broken_project_config_counts_only_in_a_trusted_project(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    _write(project / ".skillshelf" / "config.toml", POLICY + "oops\n")
    env = make_env(tmp_path, isolated_home.home, cwd=project)
    skill = write_skill(tmp_path / "src" / "s1", "s1")
    assert configured_policy(env).patterns is None  # untrusted: the project config is not in effect

    _write(env.dirs.config / "config.toml", f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n')
    error = _refused(env, skill)
    assert f"(the project:{project.resolve()} layer)" in error.message


def test_the_install_command_shows_the_skipped_layer_and_refuses(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    config = isolated_home.write_user_config(POLICY + "[ui\n")
    skill = write_skill(tmp_path / "src" / "s1", "s1")
    proc = run_cli(tmp_path, "install", str(skill), "--for", "codex")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{config}:3: error CF100: TOML syntax error" in proc.stderr
    assert "IS106" in proc.stderr and not any(Path(isolated_home.home).rglob("s1"))


def test_a_syntax_error_in_a_config_that_never_names_the_key_blocks_no_install(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    _write(env.dirs.config / "config.toml", "[ui\ntheme = 'dark'\n")
    assert configured_policy(env).patterns is None
    assert install_skill(
        str(write_skill(tmp_path / "src" / "s1", "s1")), env=env, target="codex"
    ).path.is_dir()

"""The agents' links of a placed skill: made before its lock entry is written (a link that
cannot be made changes nothing), and those a ``--force`` reinstall does not keep taken away."""

from __future__ import annotations

from pathlib import Path

import pytest
from install_helpers import make_env, write_skill

from skillshelf.errors import InstallError
from skillshelf.install import install_skill, read_lock, remove_skill
from testkit import IsolatedHome


def test_a_force_reinstall_for_fewer_agents_takes_away_the_link_it_no_longer_keeps(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    source = write_skill(tmp_path / "src" / "demo", "demo")
    claude_link = isolated_home.home / ".claude" / "skills" / "demo"
    install_skill(str(source), env=env, target="all")
    assert claude_link.is_symlink()

    result = install_skill(str(source), env=env, target="codex", force=True)

    assert not claude_link.is_symlink() and (result.path / "SKILL.md").is_file()
    remove_skill("demo", env=env)
    assert not claude_link.is_symlink() and not result.path.exists()


def test_a_link_that_cannot_be_made_leaves_no_skill_and_no_lock_entry_and_a_retry_works(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    source = write_skill(tmp_path / "src" / "demo", "demo")
    claude = isolated_home.home / ".claude"
    claude.mkdir(parents=True, exist_ok=True)
    (claude / "skills").write_text("in the way\n", encoding="utf-8")
    codex_root = isolated_home.home / ".agents" / "skills"

    with pytest.raises(InstallError) as caught:
        install_skill(str(source), env=env, target="all")
    assert caught.value.code == "IS307" and "nothing was changed" in caught.value.message
    assert not (codex_root / "demo").exists()
    assert not codex_root.is_dir() or read_lock(codex_root).get("demo") is None

    (claude / "skills").unlink()
    result = install_skill(str(source), env=env, target="all")
    assert (claude / "skills" / "demo" / "SKILL.md").is_file() and result.entry.links

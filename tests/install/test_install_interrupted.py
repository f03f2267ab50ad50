"""An install stopped (``kill -9``) after moving the skill's folder in and before writing its lock
entry leaves a folder skillshelf does not list; installing the same source again takes it over."""

from __future__ import annotations

from pathlib import Path

import pytest
from install_helpers import make_env, write_skill

from skillshelf.install import install_skill, read_lock, remove_skill
from skillshelf.install.lock import write_lock
from skillshelf.install.taken import NameTakenError
from testkit import IsolatedHome


def _orphaned(tmp_path: Path, isolated_home: IsolatedHome, target: str) -> tuple[Path, Path]:
    """A skill installed for ``target``, then its lock entry taken away: what the kill leaves."""
    env = make_env(tmp_path, isolated_home.home)
    src = write_skill(tmp_path / "src" / "foo", "foo")
    installed = install_skill(str(src), env=env, target=target)  # type: ignore[arg-type]
    root = installed.path.parent
    write_lock(root, read_lock(root).without("foo"))
    return src, installed.path


@pytest.mark.parametrize("target", ["codex", "all"])
def test_installing_again_takes_over_the_folder_an_interrupted_install_left(
    tmp_path: Path, isolated_home: IsolatedHome, target: str
) -> None:
    src, path = _orphaned(tmp_path, isolated_home, target)
    env = make_env(tmp_path, isolated_home.home)
    dry = install_skill(str(src), env=env, target=target, dry_run=True)  # type: ignore[arg-type]
    assert [d.message.split(" the ")[0] for d in dry.diagnostics if d.code == "IS134"] == ["would take over"]
    again = install_skill(str(src), env=env, target=target)  # type: ignore[arg-type]
    assert again.path == path and again.kept is None and not again.replaced
    assert [d.code for d in again.diagnostics if d.code == "IS134"] == ["IS134"]
    assert read_lock(path.parent).get("foo") is not None
    assert not (env.dirs.data / "replaced-skills").exists()
    remove_skill("foo", env=env)
    assert not path.exists() and all(not Path(link).is_symlink() for link in again.entry.links)


def test_a_folder_that_differs_from_the_source_is_still_refused(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    src, path = _orphaned(tmp_path, isolated_home, "codex")
    (path / "mine.md").write_text("my own work\n", encoding="utf-8")
    with pytest.raises(NameTakenError) as caught:
        install_skill(str(src), env=make_env(tmp_path, isolated_home.home))
    assert caught.value.code == "IS305"
    assert (path / "mine.md").is_file()

"""File names that are not UTF-8 (a Latin-1 ``café.md``): installed as their bytes, hashed by their
bytes, and never a reason for ``list``, ``update`` or ``remove`` to fail for the other skills."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest
from install_helpers import commit_all, init_repo, make_env, write_skill

from skillshelf.install import content_hash, install_skill, read_lock, remove_skill, update_skills
from skillshelf.install.provenance import locally_modified
from testkit import IsolatedHome, run_cli

_LATIN1 = os.fsdecode(b"caf\xe9.md")  # a surrogate-escaped name, as os.listdir gives it


def _skill_with_latin1_name(folder: Path, name: str) -> Path:
    write_skill(folder, name)
    (folder / _LATIN1).write_bytes(b"x")
    return folder


def _tar(path: Path) -> Path:
    with tarfile.open(path, "w:gz", format=tarfile.GNU_FORMAT) as tf:
        for name, data in [("evil/SKILL.md", b"---\nname: evil\ndescription: d e f\n---\nbody\n")] + [
            (f"evil/{_LATIN1}", b"x")
        ]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def test_content_hash_counts_a_name_that_is_not_utf8_by_its_bytes(tmp_path: Path) -> None:
    folder = _skill_with_latin1_name(tmp_path / "one", "one")
    first = content_hash(folder)
    os.rename(folder / _LATIN1, folder / os.fsdecode(b"caf\xe8.md"))
    assert content_hash(folder) != first
    (folder / "link").symlink_to(_LATIN1)
    assert content_hash(folder, with_git=True).startswith("sha256:")


@pytest.mark.parametrize("kind", ["folder", "tar", "git"])
def test_a_name_that_is_not_utf8_is_installed_with_its_bytes(
    tmp_path: Path, isolated_home: IsolatedHome, kind: str
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    if kind == "folder":
        source = str(_skill_with_latin1_name(tmp_path / "src" / "evil", "evil"))
    elif kind == "tar":
        source = str(_tar(tmp_path / "evil.tar.gz"))
    else:
        repo = init_repo(tmp_path / "repo")
        _skill_with_latin1_name(repo / "evil", "evil")
        commit_all(repo, "one")
        source = f"{repo.as_uri()}#evil"
    result = install_skill(source, env=env)
    assert os.fsencode(_LATIN1) in os.listdir(os.fsencode(result.path))
    entry = read_lock(result.path.parent).get(result.entry.name)
    assert entry is not None and not locally_modified(result.path, entry)


def test_one_skill_holding_a_name_that_is_not_utf8_stops_no_command(
    tmp_path: Path,
    isolated_home: IsolatedHome,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    env = make_env(tmp_path, isolated_home.home)
    plain = install_skill(str(write_skill(tmp_path / "src" / "plain", "plain")), env=env)
    odd = install_skill(str(write_skill(tmp_path / "src" / "odd", "odd")), env=env)
    (odd.path / _LATIN1).write_bytes(b"dropped in by hand")
    code, out, _ = run_cli(["list"], capsys)
    assert code == 0 and "plain" in out and "odd" in out
    statuses = {r.name: r.status for r in update_skills(env=env)}
    assert statuses == {"plain": "up-to-date", "odd": "skipped"}
    assert [r.status for r in update_skills(env=env, check=True)] == ["up-to-date", "up-to-date"]
    remove_skill("plain", env=env)
    assert not plain.path.exists() and odd.path.is_dir()


def test_a_skill_folder_that_cannot_be_read_counts_as_changed(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillshelf.install import provenance

    env = make_env(tmp_path, isolated_home.home)
    installed = install_skill(str(write_skill(tmp_path / "src" / "shut", "shut")), env=env)

    def unreadable(folder: Path, entry: object, *, with_git: bool = False) -> str:
        raise PermissionError(13, "Permission denied", str(folder / "SKILL.md"))

    monkeypatch.setattr(provenance, "hash_as_recorded", unreadable)
    assert locally_modified(installed.path, installed.entry)

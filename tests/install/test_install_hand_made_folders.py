"""Folders made by hand inside an installed skill, empty ones too, are a local change: ``update``
leaves them alone, and ``update --force`` keeps the changed copy aside."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from install_helpers import commit_all, init_repo, make_env, write_skill

from skillshelf.install import content_hash, install_skill, read_lock, update_skills
from skillshelf.install.lock import LOCK_FILE_NAME, write_lock
from skillshelf.install.provenance import locally_modified
from testkit import IsolatedHome


def test_content_hash_counts_an_empty_folder_by_its_place(tmp_path: Path) -> None:
    folder = write_skill(tmp_path / "skill", "skill")
    plain = content_hash(folder)
    (folder / "notes" / "drafts").mkdir(parents=True)
    nested = content_hash(folder)
    (folder / "notes" / "drafts").rmdir()
    assert len({plain, nested, content_hash(folder)}) == 3
    (folder / "notes").rmdir()
    assert content_hash(folder) == plain


def test_update_leaves_a_skill_with_hand_made_empty_folders_alone(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = init_repo(tmp_path / "upstream")
    write_skill(repo / "s" / "foo", "foo", body="one")
    commit_all(repo, "one")
    env = make_env(tmp_path, isolated_home.home)
    installed = install_skill(f"{repo.as_uri()}#s/foo", env=env)
    (installed.path / "notes" / "drafts").mkdir(parents=True)
    (repo / "README.md").write_text("readme\n", encoding="utf-8")
    commit_all(repo, "outside the skill")
    (skipped,) = update_skills(env=env)
    assert skipped.status == "skipped" and "changed locally" in skipped.message
    assert (installed.path / "notes" / "drafts").is_dir()
    write_skill(repo / "s" / "foo", "foo", body="two")
    commit_all(repo, "inside the skill")
    (forced,) = update_skills(env=env, force=True)
    assert forced.status == "updated" and forced.kept is not None
    assert (forced.kept / "notes" / "drafts").is_dir()
    assert not (installed.path / "notes").exists()


def test_an_entry_recorded_before_folders_counted_is_compared_as_it_was_recorded(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    src = write_skill(tmp_path / "src" / "kit", "kit")
    (src / "assets").mkdir()  # an empty folder of the source's own
    env = make_env(tmp_path, isolated_home.home)
    installed = install_skill(str(src), env=env)
    assert installed.entry.hash_counts_folders and (installed.path / "assets").is_dir()
    root = installed.path.parent
    earlier = dataclasses.replace(
        installed.entry, hash_counts_folders=False, content_hash=content_hash(src, folders=False)
    )
    write_lock(root, read_lock(root).with_entry(earlier))
    assert '"hash_counts_folders"' not in (root / LOCK_FILE_NAME).read_text(encoding="utf-8")
    entry = read_lock(root).get("kit")
    assert entry is not None and not locally_modified(installed.path, entry)
    assert [(r.status, r.message) for r in update_skills(env=env)] == [("up-to-date", "source unchanged")]


def test_an_entry_whose_folder_flag_an_older_version_dropped_still_reads_as_unchanged(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    src = write_skill(tmp_path / "src" / "kit", "kit")
    (src / "assets").mkdir()
    env = make_env(tmp_path, isolated_home.home)
    installed = install_skill(str(src), env=env)
    root = installed.path.parent
    lock_file = root / LOCK_FILE_NAME
    text = lock_file.read_text(encoding="utf-8")
    rewritten = json.loads(text)  # as a version that does not know the field writes the lock back
    for entry in rewritten["skills"].values():
        entry.pop("hash_counts_folders")
    lock_file.write_text(json.dumps(rewritten, indent=2), encoding="utf-8")
    entry = read_lock(root).get("kit")
    assert entry is not None and not entry.hash_counts_folders
    assert not locally_modified(installed.path, entry)
    assert [(r.status, r.message) for r in update_skills(env=env)] == [("up-to-date", "source unchanged")]
    (installed.path / "assets").rmdir()  # a real change is still one
    assert locally_modified(installed.path, entry)

"""A committed lock file cannot point ``remove``, ``update`` or ``list`` outside its skills root.

Each test builds the hostile lock by hand (a key that is a path, an absolute path, or the name
of a symlink leaving the root) next to a real installed skill, and checks that the outside
folder is untouched, the bad entry is reported with a code, and the good entry still works.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from install_helpers import make_env, run_cli, write_skill

from skillshelf.env import Env
from skillshelf.errors import NotFoundError
from skillshelf.install import install_skill, read_lock, remove_skill, update_skills
from skillshelf.install.lock import LOCK_FILE_NAME, content_hash
from testkit import IsolatedHome


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim" / "notes"
    victim.mkdir(parents=True)
    (victim / "a.txt").write_text("precious\n", encoding="utf-8")
    return victim


def _project(tmp_path: Path, home: Path) -> tuple[Env, Path]:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    root = project / ".agents" / "skills"
    root.mkdir(parents=True)
    return make_env(tmp_path, home, cwd=project), root


def _add_entries(root: Path, entries: dict[str, dict[str, str]]) -> None:
    path = root / LOCK_FILE_NAME
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"version": 1, "skills": {}}
    data["skills"].update(entries)
    path.write_text(json.dumps(data), encoding="utf-8")


def _entry(skill_name: str, folder: Path) -> dict[str, str]:
    """What a hostile lock would say: a matching hash, so nothing looks modified."""
    return {
        "skill_name": skill_name,
        "source": "x",
        "kind": "folder",
        "location": "/nowhere",
        "content_hash": content_hash(folder),
        "installed_at": "2025-01-01T00:00:00+00:00",
    }


def _hostile_keys(tmp_path: Path, victim: Path, root: Path) -> dict[str, dict[str, str]]:
    up = os.path.relpath(victim, root)
    return {
        str(victim): _entry("tidy", victim),  # absolute
        up: _entry("tidy-up", victim),  # ../../victim/notes
        "a/../../" + up: _entry("tidy-mid", victim),
        "..": _entry("tidy-dots", victim),
    }


@pytest.mark.parametrize("force", [False, True])
def test_remove_never_deletes_a_folder_named_by_a_path_in_the_lock(
    tmp_path: Path, isolated_home: IsolatedHome, force: bool
) -> None:
    victim = _victim(tmp_path)
    env, root = _project(tmp_path, isolated_home.home)
    _add_entries(root, _hostile_keys(tmp_path, victim, root))
    for name in ("tidy", "tidy-up", "tidy-mid", "tidy-dots"):
        with pytest.raises(NotFoundError) as caught:
            remove_skill(name, env=env, scope="project", force=force)
        assert caught.value.code == "IS404"
    assert (victim / "a.txt").read_text(encoding="utf-8") == "precious\n"


def test_a_symlinked_skill_folder_in_the_lock_is_ignored_and_its_target_kept(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    victim = _victim(tmp_path)
    env, root = _project(tmp_path, isolated_home.home)
    (root / "tidy").symlink_to(victim, target_is_directory=True)
    _add_entries(root, {"tidy": _entry("tidy", victim)})
    lock = read_lock(root)
    assert dict(lock.entries) == {}
    assert [(d.code, d.field) for d in lock.diagnostics] == [("IS402", "tidy")]
    with pytest.raises(NotFoundError):
        remove_skill("tidy", env=env, force=True)
    assert (victim / "a.txt").is_file() and (root / "tidy").is_symlink()


def test_bad_entries_are_reported_kept_in_the_file_and_never_stop_the_good_ones(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    victim = _victim(tmp_path)
    env, root = _project(tmp_path, isolated_home.home)
    good = install_skill(
        str(write_skill(env.project_root / "vendor" / "good", "good")), env=env, scope="project"
    )
    hostile = {
        **_hostile_keys(tmp_path, victim, root),
        "usr": _entry("usr", victim) | {"content_hash": 5},  # type: ignore[dict-item]
        "broken": "not an object",
    }
    _add_entries(root, hostile)  # type: ignore[arg-type]
    lock = read_lock(root)
    assert list(lock.entries) == ["good"]
    codes = {d.field: d.code for d in lock.diagnostics}
    assert codes == {
        **dict.fromkeys(_hostile_keys(tmp_path, victim, root), "IS402"),
        "usr": "IS403",
        "broken": "IS403",
    }
    assert all(d.fix and d.path == root / LOCK_FILE_NAME for d in lock.diagnostics)
    from skillshelf.install.manage import installed_roots, lock_diagnostics

    assert lock_diagnostics(installed_roots(env, "project")) == lock.diagnostics

    (result,) = update_skills(env=env, scope="project")
    assert (result.name, result.status) == ("good", "up-to-date")
    remove_skill("good", env=env, scope="project")
    assert not good.path.exists() and (victim / "a.txt").is_file()
    kept = json.loads((root / LOCK_FILE_NAME).read_text(encoding="utf-8"))["skills"]
    assert kept == hostile  # the ignored entries are written back untouched


def test_update_does_not_read_a_folder_named_by_an_absolute_key(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = _victim(tmp_path)
    env, root = _project(tmp_path, isolated_home.home)
    install_skill(str(write_skill(env.project_root / "vendor" / "good", "good")), env=env, scope="project")
    _add_entries(root, {str(victim): _entry("tidy", victim)})
    hashed: list[Path] = []
    import skillshelf.install.upstream as manage

    real = manage.hash_as_recorded
    monkeypatch.setattr(
        manage, "hash_as_recorded", lambda folder, entry: hashed.append(folder) or real(folder, entry)
    )
    results = update_skills(env=env)
    assert [r.name for r in results] == ["good"]
    assert hashed and victim not in hashed


def _cli(cwd: Path, *args: str) -> tuple[int, str, str]:
    proc = run_cli(cwd, *args)
    return proc.returncode, proc.stdout, proc.stderr


def test_cli_remove_update_and_list_report_the_bad_entry_and_keep_the_victim(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    victim = _victim(tmp_path)
    _env, root = _project(tmp_path, isolated_home.home)
    _add_entries(root, {str(victim): _entry("tidy", victim)})
    project = root.parent.parent
    code, _out, err = _cli(project, "remove", "tidy")
    assert code == 1 and "IS402" in err and "IS404" in err
    assert (victim / "a.txt").is_file()
    code, out, err = _cli(project, "update", "--json")
    assert code == 0 and "IS402" in err
    assert [d["code"] for d in json.loads(out)["diagnostics"]] == ["IS402"]
    write_skill(root / "listed", "listed")
    code, out, err = _cli(project, "list")
    assert code == 0 and "IS402" in err and "listed" in out


def test_links_a_lock_entry_names_outside_the_agents_folders_are_neither_made_nor_removed(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    from skillshelf.install.manage import link_diagnostics

    env, root = _project(tmp_path, isolated_home.home)
    good = install_skill(
        str(write_skill(env.project_root / "vendor" / "good", "good")), env=env, scope="project"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    dangling = elsewhere / "good"
    dangling.symlink_to(tmp_path / "gone")  # a link install did not make, pointing nowhere
    lock = json.loads((root / LOCK_FILE_NAME).read_text(encoding="utf-8"))
    lock["skills"]["good"]["links"] = [str(dangling), str(tmp_path / "made-by-update" / "good")]
    (root / LOCK_FILE_NAME).write_text(json.dumps(lock), encoding="utf-8")
    assert [d.code for d in link_diagnostics(env, "project")] == ["IS402", "IS402"]
    write_skill(env.project_root / "vendor" / "good", "good", body="changed upstream")
    (result,) = update_skills(env=env, scope="project")
    assert result.status == "updated"
    assert not (tmp_path / "made-by-update").exists()
    remove_skill("good", env=env, scope="project")
    assert not good.path.exists() and dangling.is_symlink()

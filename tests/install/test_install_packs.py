"""Packs: ``update`` after ``install SOURCE --all`` installs what the pack gained, leaves alone
what it dropped, and never brings back what the user removed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from install_helpers import CountingGit, commit_all, init_repo, make_env, run_cli, write_skill

from skillshelf.env import Env
from skillshelf.install import read_lock, remove_skill, update_skills
from skillshelf.install.lock import LOCK_FILE_NAME, write_lock
from skillshelf.install.many import install_all
from testkit import IsolatedHome


def _pack_repo(tmp_path: Path, *names: str) -> Path:
    repo = init_repo(tmp_path / "pack")
    for name in names:
        write_skill(repo / "skills" / name, name)
    (repo / "README.md").write_text("a pack\n", encoding="utf-8")
    commit_all(repo, "first")
    return repo


def _installed(env: Env, source: str) -> Path:
    result = install_all(source, env=env)
    assert result.failed == ()
    return result.installed[0].path.parent


def _statuses(results: Any) -> dict[str, str]:
    return {r.name: r.status for r in results}


def test_update_installs_the_skills_a_pack_gained_and_check_only_lists_them(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = _pack_repo(tmp_path, "alpha", "beta")
    env = make_env(tmp_path, isolated_home.home)
    root = _installed(env, f"{repo.as_uri()}#skills")
    write_skill(repo / "skills" / "gamma", "gamma")
    commit = commit_all(repo, "gamma joins")

    checked = update_skills(env=env, check=True)
    assert _statuses(checked) == {"alpha": "up-to-date", "beta": "up-to-date", "gamma": "new"}
    assert "skills" in checked[-1].message and not (root / "gamma").exists()

    updated = update_skills(env=env)
    assert _statuses(updated) == {"alpha": "up-to-date", "beta": "up-to-date", "gamma": "added"}
    assert (root / "gamma" / "SKILL.md").is_file()
    lock = read_lock(root)
    gamma = lock.get("gamma")
    assert gamma is not None and gamma.subdir == "skills/gamma" and gamma.commit == commit
    assert gamma.pack == f"{repo.as_uri()}#skills" and lock.members(gamma.pack)[0].name == "alpha"
    assert lock.packs[gamma.pack].places == ("alpha", "beta", "gamma")
    assert set(_statuses(update_skills(env=env)).values()) == {"up-to-date"}


def test_a_removed_skill_of_a_pack_does_not_come_back_and_updating_one_name_adds_nothing(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = _pack_repo(tmp_path, "alpha", "beta")
    env = make_env(tmp_path, isolated_home.home)
    root = _installed(env, repo.as_uri())
    remove_skill("beta", env=env)
    write_skill(repo / "skills" / "beta", "beta", body="changed upstream")
    write_skill(repo / "skills" / "gamma", "gamma")
    commit_all(repo, "two")

    assert _statuses(update_skills(["alpha"], env=env)) == {"alpha": "up-to-date"}
    assert not (root / "gamma").exists()
    assert _statuses(update_skills(env=env)) == {"alpha": "up-to-date", "gamma": "added"}
    assert not (root / "beta").exists()


def test_a_skill_its_pack_dropped_is_left_in_place_and_said_to_be_gone(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = _pack_repo(tmp_path, "alpha", "beta")
    env = make_env(tmp_path, isolated_home.home)
    root = _installed(env, repo.as_uri())
    shutil.rmtree(repo / "skills" / "beta")
    commit_all(repo, "beta leaves")

    results = update_skills(env=env)
    assert _statuses(results) == {"alpha": "up-to-date", "beta": "skipped"}
    gone = next(r for r in results if r.name == "beta")
    assert "no longer in" in gone.message and "skillshelf remove beta" in gone.message
    assert (root / "beta" / "SKILL.md").is_file() and read_lock(root).get("beta") is not None

    proc = run_cli(tmp_path, "update")
    assert proc.returncode == 0, proc.stderr
    assert "skipped" in proc.stdout and "no longer in" in proc.stdout


def test_an_unmoved_git_pack_is_not_fetched_again(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    repo = _pack_repo(tmp_path, "alpha", "beta", "gamma")
    env = make_env(tmp_path, isolated_home.home)
    _installed(env, repo.as_uri())
    counting = CountingGit(environ=env.environ)
    assert set(_statuses(update_skills(env=env, git=counting)).values()) == {"up-to-date"}
    assert counting.calls == ["ls-remote"]

    write_skill(repo / "skills" / "delta", "delta")
    commit_all(repo, "delta")
    counting.calls.clear()
    assert _statuses(update_skills(env=env, git=counting))["delta"] == "added"
    assert counting.calls == ["ls-remote", "clone"]


def test_a_gained_skill_that_does_not_validate_fails_until_fixed_and_the_others_are_added(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = tmp_path / "shelf"
    write_skill(source / "alpha", "alpha")
    env = make_env(tmp_path, isolated_home.home)
    root = _installed(env, str(source))
    (source / "broken").mkdir()
    (source / "broken" / "SKILL.md").write_text("no frontmatter here\n", encoding="utf-8")
    write_skill(source / "gamma", "gamma")

    proc = run_cli(tmp_path, "update")
    assert proc.returncode == 1
    assert "added" in proc.stdout and "broken" in proc.stdout and "Traceback" not in proc.stderr
    assert (root / "gamma").is_dir() and not (root / "broken").exists()
    again = json.loads(run_cli(tmp_path, "update", "--json").stdout)["results"]
    assert {r["name"]: r["status"] for r in again} == {
        "alpha": "up-to-date",
        "gamma": "up-to-date",
        "broken": "failed",
    }
    write_skill(source / "broken", "broken")
    fixed = json.loads(run_cli(tmp_path, "update", "--json").stdout)["results"]
    assert {r["name"]: r["status"] for r in fixed}["broken"] == "added"


def test_update_gives_gained_skills_the_agents_and_links_of_their_pack(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = tmp_path / "shelf"
    write_skill(source / "alpha", "alpha")
    proc = run_cli(tmp_path, "install", str(source), "--all", "--for", "all", "--json")
    root = Path(json.loads(proc.stdout)["installed"][0]["path"]).parent
    write_skill(source / "beta", "beta")
    assert run_cli(tmp_path, "update").returncode == 0
    lock = read_lock(root)
    alpha, beta = lock.get("alpha"), lock.get("beta")
    assert alpha is not None and beta is not None
    assert beta.agents == alpha.agents != ()
    assert [Path(link).parent for link in beta.links] == [Path(link).parent for link in alpha.links] != []
    for link in beta.links:
        assert (Path(link) / "SKILL.md").is_file()


def test_the_pack_record_goes_with_its_last_skill_and_a_hostile_one_is_kept_as_it_was(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = tmp_path / "shelf"
    write_skill(source / "alpha", "alpha")
    write_skill(source / "beta", "beta")
    env = make_env(tmp_path, isolated_home.home)
    root = _installed(env, str(source))
    remove_skill("alpha", env=env)
    assert list(read_lock(root).packs) == [str(source)]
    remove_skill("beta", env=env)
    assert not (root / LOCK_FILE_NAME).exists()

    root = _installed(env, str(source))
    path = root / LOCK_FILE_NAME
    data = json.loads(path.read_text(encoding="utf-8"))
    data["packs"]["odd"] = ["not", "a", "record"]
    path.write_text(json.dumps(data), encoding="utf-8")
    lock = read_lock(root)
    assert list(lock.packs) == [str(source)]
    assert [(d.code, d.field) for d in lock.diagnostics] == [("IS403", "odd")]
    write_lock(root, lock)
    assert json.loads(path.read_text(encoding="utf-8"))["packs"]["odd"] == ["not", "a", "record"]

    data["packs"] = "nonsense"
    path.write_text(json.dumps(data), encoding="utf-8")
    proc = run_cli(tmp_path, "update")
    assert proc.returncode == 1 and "IS401" in proc.stderr and "Traceback" not in proc.stderr


def test_remove_pack_takes_away_every_skill_of_the_pack_and_nothing_else(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = tmp_path / "shelf"
    for name in ("alpha", "beta"):
        write_skill(source / name, name)
    other = tmp_path / "other"
    write_skill(other, "solo")
    env = make_env(tmp_path, isolated_home.home)
    root = _installed(env, str(source))
    assert run_cli(tmp_path, "install", str(other)).returncode == 0
    (root / "beta" / "notes.md").write_text("mine\n", encoding="utf-8")

    listed = json.loads(run_cli(tmp_path, "list", "--json").stdout)
    assert {s["name"]: s["installed"]["pack"] for s in listed if s["installed"]} == {
        "alpha": str(source),
        "beta": str(source),
        "solo": None,
    }
    proc = run_cli(tmp_path, "remove", "--pack", "shelf")
    assert proc.returncode == 1 and "Removed alpha" in proc.stdout
    assert "beta: error IS405" in proc.stderr and "Traceback" not in proc.stderr
    shutil.rmtree(source)  # the pack's folder is gone: its path still names it
    data = json.loads(run_cli(tmp_path, "remove", "--pack", str(source), "--force", "--json").stdout)
    assert [r["name"] for r in data["removed"]] == ["beta"] and data["removed"][0]["kept"]
    assert sorted(p.name for p in root.iterdir() if not p.name.startswith(".")) == ["solo"]
    assert read_lock(root).packs == {}

    proc = run_cli(tmp_path, "remove", "--pack", str(source))
    assert proc.returncode == 1 and "IS407" in proc.stderr and "no pack is installed" in proc.stderr
    proc = run_cli(tmp_path, "remove")
    assert proc.returncode == 2 and "--pack" in proc.stderr


def test_in_an_untrusted_project_a_pack_folder_outside_it_only_lists_its_new_skills(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project = init_repo(tmp_path / "project")
    outside, inside = tmp_path / "outside", project / "vendor" / "skills"
    for folder in (outside, inside):
        write_skill(folder / "alpha", f"alpha-{folder.name}")
    for folder in (outside, inside):
        proc = run_cli(project, "install", str(folder), "--all", "--scope", "project")
        assert proc.returncode == 0, proc.stderr
    write_skill(outside / "beta", "beta-outside")
    write_skill(inside / "beta", "beta-skills")

    checked = run_cli(project, "update", "--check", "--json")
    planned = [r for r in json.loads(checked.stdout)["results"] if r["status"] == "new"]
    proc = run_cli(project, "update", "--json")
    results = {r["name"]: r for r in json.loads(proc.stdout)["results"]}
    assert results["beta-skills"]["status"] == "added"
    assert results["beta"]["status"] == "new" and "not trusted" in results["beta"]["message"]
    outside_new = [r for r in planned if "not trusted" in r["message"]]
    assert outside_new == [results["beta"]]  # --check says what update then does
    assert [r["message"] for r in planned if r not in outside_new] == [
        f"new in {inside} (folder beta); `skillshelf update` installs it"
    ]
    assert not (project / ".agents" / "skills" / "beta-outside").exists()

    assert run_cli(project, "trust").returncode == 0
    results = {r["name"]: r for r in json.loads(run_cli(project, "update", "--json").stdout)["results"]}
    assert results["beta-outside"]["status"] == "added"

"""``install SOURCE --all``: every skill of a source, each on its own."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import time
from pathlib import Path

import pytest
from install_helpers import CountingGit, commit_all, github_tarball, init_repo, make_env, run_cli, write_skill

from skillshelf.errors import InstallError
from skillshelf.install import install_skill, read_lock, update_skills
from skillshelf.install.many import install_all
from testkit import IsolatedHome


def _shelf(repo: Path) -> Path:
    """Two skills, and a third that carries a SKILL.md template among its own files."""
    write_skill(repo / "skills" / "alpha", "alpha")
    write_skill(repo / "skills" / "beta", "beta")
    write_skill(repo / "skills" / "maker", "maker")
    write_skill(repo / "skills" / "maker" / "templates" / "starter", "starter")
    return repo


def test_every_skill_of_a_repository_is_installed_with_its_own_lock_entry(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = _shelf(init_repo(tmp_path / "up"))
    commit = commit_all(repo, "one")
    env = make_env(tmp_path, isolated_home.home)
    result = install_all(repo.as_uri(), env=env)
    assert [r.name for r in result.installed] == ["alpha", "beta", "maker"]
    assert result.not_installed == () and result.commit == commit
    root = result.installed[0].path.parent
    assert (root / "maker" / "templates" / "starter" / "SKILL.md").is_file()  # part of maker
    lock = read_lock(root)
    entries = [lock.get(name) for name in ("alpha", "beta", "maker")]
    assert [e.subdir for e in entries if e] == ["skills/alpha", "skills/beta", "skills/maker"]
    assert {e.commit for e in entries if e} == {commit}

    write_skill(repo / "skills" / "beta", "beta", body="changed")
    commit_all(repo, "two")
    statuses = {r.name: r.status for r in update_skills(env=env)}
    assert statuses == {"alpha": "up-to-date", "beta": "updated", "maker": "up-to-date"}
    assert "changed" in (root / "beta" / "SKILL.md").read_text(encoding="utf-8")


def test_a_bad_skill_or_a_taken_name_is_reported_and_the_others_are_installed(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = tmp_path / "shelf"
    write_skill(source / "alpha", "alpha")
    write_skill(source / "second-alpha", "alpha")
    (source / "broken").mkdir()
    (source / "broken" / "SKILL.md").write_text("no frontmatter here\n", encoding="utf-8")
    write_skill(source / "gamma", "gamma")
    result = install_all(str(source), env=make_env(tmp_path, isolated_home.home))
    assert [r.name for r in result.installed] == ["alpha", "gamma"]
    failed = {item.folder: item for item in result.failed}
    assert set(failed) == {"broken", "second-alpha"}
    assert failed["broken"].code == "IS320" and "SK101" in failed["broken"].message
    assert failed["broken"].diagnostics
    assert failed["second-alpha"].code == "IS305"
    assert f"{shlex.quote(f'{source}#second-alpha')} --name" in failed["second-alpha"].fix


def test_running_it_again_leaves_what_is_installed_from_there_as_it_is(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = tmp_path / "shelf"
    write_skill(source / "alpha", "alpha")
    write_skill(source / "beta", "beta")
    env = make_env(tmp_path, isolated_home.home)
    install_skill(str(source / "alpha"), env=env)  # the same folder, spelled as a path
    first = install_all(str(source), env=env)
    assert [r.name for r in first.installed] == ["beta"]
    again = install_all(str(source), env=env)
    assert again.installed == () and again.failed == ()
    assert [(n.name, n.status) for n in again.not_installed] == [("alpha", "present"), ("beta", "present")]


def test_a_skill_of_the_same_name_from_elsewhere_is_not_replaced_without_force(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    mine = install_skill(str(write_skill(tmp_path / "mine" / "alpha", "alpha", body="mine")), env=env)
    source = tmp_path / "shelf"
    write_skill(source / "alpha", "alpha", body="theirs")
    (taken,) = install_all(str(source), env=env).failed
    assert taken.code == "IS305" and "mine" in (mine.path / "SKILL.md").read_text(encoding="utf-8")
    (replaced,) = install_all(str(source), env=env, force=True).installed
    assert replaced.replaced and "theirs" in (mine.path / "SKILL.md").read_text(encoding="utf-8")


def test_an_archive_with_a_top_folder_installs_each_skill_so_that_update_finds_it_again(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    files = {
        "skills/alpha/SKILL.md": b"---\nname: alpha\ndescription: Alpha things for the tests here.\n---\nA\n",
        "skills/beta/SKILL.md": b"---\nname: beta\ndescription: Beta things for the tests here.\n---\nB\n",
    }
    archive = github_tarball(tmp_path / "release.tar.gz", "shelf-1.0", files)
    env = make_env(tmp_path, isolated_home.home)
    result = install_all(f"{archive}#skills", env=env)
    assert [r.entry.subdir for r in result.installed] == ["skills/alpha", "skills/beta"]
    assert [r.status for r in update_skills(env=env)] == ["up-to-date", "up-to-date"]


def test_a_source_without_any_skill_is_an_error_and_leaves_no_folder(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    (tmp_path / "empty" / "docs").mkdir(parents=True)
    env = make_env(tmp_path, isolated_home.home)
    with pytest.raises(InstallError) as caught:
        install_all(str(tmp_path / "empty"), env=env)
    assert caught.value.code == "IS310"
    assert not (isolated_home.home / ".agents" / "skills").exists()


def test_a_skill_with_a_template_skill_md_inside_installs_as_one_skill(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = _shelf(tmp_path / "up")
    result = install_skill(str(repo / "skills" / "maker"), env=make_env(tmp_path, isolated_home.home))
    assert result.name == "maker"
    lone = tmp_path / "wrapper"
    write_skill(lone / "only" / "maker", "maker")
    write_skill(lone / "only" / "maker" / "templates" / "starter", "starter")
    result = install_skill(str(lone), env=make_env(tmp_path, isolated_home.home), force=True)
    assert result.name == "maker" and result.entry.subdir is None


def test_the_cli_lists_what_it_installed_and_what_failed_and_exits_1(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = tmp_path / "shelf"
    write_skill(source / "alpha", "alpha")
    (source / "broken").mkdir()
    (source / "broken" / "SKILL.md").write_text("no frontmatter here\n", encoding="utf-8")
    one = run_cli(tmp_path, "install", str(source))
    assert one.returncode == 1 and "IS311" in one.stderr and "--all" in one.stderr
    proc = run_cli(tmp_path, "install", str(source), "--all")
    assert proc.returncode == 1, proc.stderr
    assert "Installed 1 skill from" in proc.stdout and "alpha ->" in proc.stdout
    assert "Not installed (1):" in proc.stderr and "broken: error IS320" in proc.stderr
    assert "Traceback" not in proc.stderr
    again = run_cli(tmp_path, "install", str(source / "alpha"), "--all", "--json")
    data = json.loads(again.stdout)
    assert again.returncode == 0 and data["installed"] == []
    assert [(n["name"], n["status"]) for n in data["not_installed"]] == [("alpha", "present")]
    named = run_cli(tmp_path, "install", str(source), "--all", "--name", "x")
    assert named.returncode == 2 and "IS002" in named.stderr


def test_update_fetches_a_repository_once_for_all_the_skills_installed_from_it(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = _shelf(init_repo(tmp_path / "up"))
    commit_all(repo, "one")
    env = make_env(tmp_path, isolated_home.home)
    install_all(repo.as_uri(), env=env)
    write_skill(repo / "skills" / "alpha", "alpha", body="changed")
    commit_all(repo, "two")
    counting = CountingGit(environ=env.environ)
    checked = update_skills(env=env, check=True, git=counting)
    assert [r.status for r in checked] == ["available", "up-to-date", "up-to-date"]
    assert counting.calls == ["ls-remote", "clone"]
    counting.calls.clear()
    assert [r.status for r in update_skills(env=env, git=counting)] == ["updated", "up-to-date", "up-to-date"]
    assert counting.calls == ["ls-remote", "clone"]

    shutil.rmtree(repo)
    counting.calls.clear()
    failed = update_skills(env=env, git=counting)
    assert [r.status for r in failed] == ["failed"] * 3 and counting.calls == ["ls-remote"]
    assert all("IS112" in r.message for r in failed)


def test_update_counts_the_many_skills_that_are_up_to_date_instead_of_a_row_each(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = tmp_path / "shelf"
    for number in range(12):
        write_skill(source / f"skill-{number:02d}", f"skill-{number:02d}")
    assert run_cli(tmp_path, "install", str(source), "--all").returncode == 0
    write_skill(source / "skill-03", "skill-03", body="changed")
    proc = run_cli(tmp_path, "update")
    assert proc.returncode == 0, proc.stderr
    assert "11 skills are up to date" in proc.stdout
    assert "skill-03" in proc.stdout and "skill-04" not in proc.stdout


def test_remove_takes_several_names_and_removes_each_it_can(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = tmp_path / "shelf"
    for name in ("alpha", "beta", "gamma"):
        write_skill(source / name, name)
    installed = json.loads(run_cli(tmp_path, "install", str(source), "--all", "--json").stdout)["installed"]
    root = Path(installed[0]["path"]).parent
    proc = run_cli(tmp_path, "remove", "alpha", "nope", "gamma")
    assert proc.returncode == 1
    assert "Removed alpha" in proc.stdout and "Removed gamma" in proc.stdout
    assert "nope: error IS404" in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(p.name for p in root.iterdir() if not p.name.startswith(".")) == ["beta"]
    data = json.loads(run_cli(tmp_path, "remove", "beta", "alpha", "--json").stdout)
    assert [r["name"] for r in data["removed"]] == ["beta"]
    assert [(f["name"], f["code"]) for f in data["failed"]] == [("alpha", "IS404")]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_unsafe_skill_folders_are_refused_one_by_one(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    source = tmp_path / "shelf"
    write_skill(source / "piped", "piped")
    os.mkfifo(source / "piped" / "fifo")
    write_skill(source / "leaky", "leaky")
    (source / "leaky" / "outside").symlink_to(tmp_path)
    (source / "loop").symlink_to(source)  # a link back up is not followed
    write_skill(source / "plain", "plain")
    proc = run_cli(tmp_path, "install", str(source), "--all")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "Installed 1 skill from" in proc.stdout and "plain ->" in proc.stdout
    assert "piped: error IS303" in proc.stderr and "leaky: error IS302" in proc.stderr
    assert "nothing was installed" not in proc.stderr
    assert "the others were installed" in proc.stderr


def test_a_dry_run_checks_every_skill_and_writes_nothing(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    source = tmp_path / "shelf"
    write_skill(source / "alpha", "alpha")
    write_skill(source / "second-alpha", "alpha")
    (source / "broken").mkdir()
    (source / "broken" / "SKILL.md").write_text("no frontmatter here\n", encoding="utf-8")
    env = make_env(tmp_path, isolated_home.home)
    planned = install_all(str(source), env=env, dry_run=True)
    assert planned.dry_run and [r.name for r in planned.installed] == ["alpha"]
    assert all(r.dry_run for r in planned.installed)
    assert {n.folder: n.code for n in planned.failed} == {"broken": "IS320", "second-alpha": "IS305"}
    one = install_skill(str(source / "alpha"), env=env, dry_run=True)
    assert one.dry_run and one.entry.content_hash and not one.path.exists()
    assert not (isolated_home.home / ".agents").exists()
    proc = run_cli(tmp_path, "install", str(source), "--all", "--dry-run")
    assert proc.returncode == 1 and "Would install 1 skill from" in proc.stdout
    assert "the others would be installed" in proc.stderr and "nothing was written" in proc.stdout
    single = run_cli(tmp_path, "install", str(source / "alpha"), "--dry-run", "--json")
    assert single.returncode == 0 and json.loads(single.stdout)["dry_run"] is True
    assert not (isolated_home.home / ".agents").exists()


def test_update_clears_the_scratch_clone_a_killed_update_left_a_day_ago(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    from skillshelf.install.fetch_once import STALE_AFTER_S

    env = make_env(tmp_path, isolated_home.home)
    install_all(str(write_skill(tmp_path / "shelf" / "alpha", "alpha").parent), env=env)
    scratch = env.dirs.cache / "update"
    old, recent = scratch / "fetch-old", scratch / "fetch-recent"
    for folder in (old, recent):
        (folder / "repo").mkdir(parents=True)
    past = time.time() - STALE_AFTER_S - 60
    os.utime(old, (past, past))
    assert [r.status for r in update_skills(env=env)] == ["up-to-date"]
    assert not old.exists() and recent.is_dir()  # another update may be using it


def test_a_big_pack_is_reported_in_a_few_lines_and_like_failures_together(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = tmp_path / "shelf"
    for number in range(25):
        write_skill(source / f"skill-{number:02d}", f"skill-{number:02d}", f"Deploy: fast, number {number}")
    for number in range(3):
        (source / f"plain-{number}").mkdir()
        (source / f"plain-{number}" / "SKILL.md").write_text("# no frontmatter\n", encoding="utf-8")
    proc = run_cli(tmp_path, "install", str(source), "--all")
    assert proc.returncode == 1
    out = proc.stdout.splitlines()
    assert out[0].startswith("Installed 25 skills") and len(out) == 3
    assert out[1].startswith("  into ") and "skill-00, skill-01" in out[1] and "skill-24" in out[1]
    assert "25 findings in the installed skills (warning SK105 x25)" in proc.stderr
    assert "  3 skills: error IS320" in proc.stderr
    assert "plain-0, plain-1, plain-2" in proc.stderr and proc.stderr.count("fix: start the file") == 1

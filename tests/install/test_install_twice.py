"""`install SOURCE` again, from the same source and ref, for the same agents, onto an unchanged
copy, has nothing to do: it says so and exits 0. Any other skill under that name is `IS305`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from install_helpers import commit_all, git, init_repo, make_env, run_cli, write_skill

from skillshelf.install import install_skill, read_lock
from skillshelf.install.taken import AlreadyInstalledError, NameTakenError
from testkit import IsolatedHome


def _tagged_repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    write_skill(repo / "skills" / "pdf-forms", "pdf-forms")
    commit_all(repo, "v1")
    git(repo, "tag", "v1")
    return repo


def test_installing_the_same_source_and_ref_again_says_so_and_exits_0(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = f"{_tagged_repo(tmp_path).as_uri()}@v1#skills/pdf-forms"
    assert run_cli(tmp_path, "install", source, "--for", "codex").returncode == 0
    root = isolated_home.home / ".agents" / "skills"
    before = read_lock(root).get("pdf-forms")

    again = run_cli(tmp_path, "install", source, "--for", "codex")
    assert again.returncode == 0, again.stderr
    assert f"'pdf-forms' is already installed from {source}" in again.stdout
    assert "`skillshelf update pdf-forms` for a newer version" in again.stdout
    assert read_lock(root).get("pdf-forms") == before  # nothing written

    as_json = json.loads(run_cli(tmp_path, "install", source, "--for", "codex", "--json").stdout)
    assert as_json["already_installed"] is True and as_json["source_changed"] is False
    assert as_json["lock"]["source"] == source


def test_installing_again_says_when_the_source_has_changed_since(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = _tagged_repo(tmp_path)
    env = make_env(tmp_path, isolated_home.home)
    source = f"{repo.as_uri()}#skills/pdf-forms"  # the default branch, which moves on
    install_skill(source, env=env, target="codex")
    write_skill(repo / "skills" / "pdf-forms", "pdf-forms", body="v2")
    commit_all(repo, "v2")
    with pytest.raises(AlreadyInstalledError) as again:
        install_skill(source, env=env, target="codex")
    assert again.value.source_changed and "the source has changed since" in again.value.hint


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("@v1", "codex"), ("", "codex")),  # another ref
        (("@v1", "codex"), ("@v1", "all")),  # for other agents
    ],
)
def test_another_ref_or_other_agents_under_the_same_name_is_refused(
    tmp_path: Path, isolated_home: IsolatedHome, first: tuple[str, str], second: tuple[str, str]
) -> None:
    repo = _tagged_repo(tmp_path)
    env = make_env(tmp_path, isolated_home.home)
    install_skill(f"{repo.as_uri()}{first[0]}#skills/pdf-forms", env=env, target=first[1])  # type: ignore[arg-type]
    with pytest.raises(NameTakenError) as refused:
        install_skill(f"{repo.as_uri()}{second[0]}#skills/pdf-forms", env=env, target=second[1])  # type: ignore[arg-type]
    assert refused.value.code == "IS305" and not isinstance(refused.value, AlreadyInstalledError)


def test_another_source_or_a_copy_changed_by_hand_under_the_same_name_is_refused(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = f"{_tagged_repo(tmp_path).as_uri()}@v1#skills/pdf-forms"
    assert run_cli(tmp_path, "install", source, "--for", "codex").returncode == 0
    other = write_skill(tmp_path / "elsewhere" / "pdf-forms", "pdf-forms")
    refused = run_cli(tmp_path, "install", str(other), "--for", "codex")
    assert refused.returncode == 1 and "IS305" in refused.stderr

    installed = isolated_home.home / ".agents" / "skills" / "pdf-forms"
    (installed / "notes.md").write_text("mine\n", encoding="utf-8")
    changed = run_cli(tmp_path, "install", source, "--for", "codex")
    assert changed.returncode == 1 and "IS305" in changed.stderr
    assert (installed / "notes.md").is_file()


def test_installing_for_both_agents_again_is_nothing_to_do_while_the_link_is_in_place(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = f"{_tagged_repo(tmp_path).as_uri()}@v1#skills/pdf-forms"
    env = make_env(tmp_path, isolated_home.home)
    first = install_skill(source, env=env, target="all")
    with pytest.raises(AlreadyInstalledError):
        install_skill(source, env=env, target="all")
    (link,) = first.entry.links
    Path(link).unlink()
    with pytest.raises(NameTakenError) as refused:
        install_skill(source, env=env, target="all")
    assert not isinstance(refused.value, AlreadyInstalledError)

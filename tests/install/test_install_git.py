"""Installing from local git repositories over file:// URLs: tags, branches, commits, subfolders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from install_helpers import commit_all, git, init_repo, make_env, tree, write_skill

from skillshelf.errors import InstallError
from skillshelf.install import install_skill, read_lock
from skillshelf.install.lock import content_hash
from testkit import IsolatedHome


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with two skills under skills/, tagged v1, then a change on main."""
    repo = init_repo(tmp_path / "upstream")
    write_skill(repo / "skills" / "pdf-forms", "pdf-forms", body="version one")
    write_skill(repo / "skills" / "release-notes", "release-notes")
    (repo / "skills" / "pdf-forms" / "scripts").mkdir()
    (repo / "skills" / "pdf-forms" / "scripts" / "fill.py").write_text("print('fill')\n", encoding="utf-8")
    commit_all(repo, "first")
    git(repo, "tag", "v1")
    write_skill(repo / "skills" / "pdf-forms", "pdf-forms", body="version two")
    commit_all(repo, "second")
    return repo


def test_install_from_file_url_subfolder_records_commit_and_hash(
    tmp_path: Path, isolated_home: IsolatedHome, repo: Path
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    stages: list[str] = []
    result = install_skill(
        f"{repo.as_uri()}#skills/pdf-forms", env=env, progress=lambda stage, _fraction: stages.append(stage)
    )
    root = Path.home() / ".agents" / "skills"
    assert result.path == root / "pdf-forms"
    assert "version two" in (result.path / "SKILL.md").read_text(encoding="utf-8")
    assert (result.path / "scripts" / "fill.py").is_file()
    assert not (result.path / ".git").exists()
    entry = read_lock(root).get("pdf-forms")
    assert entry is not None
    assert entry.commit == git(repo, "rev-parse", "HEAD")
    assert (entry.kind, entry.subdir, entry.ref) == ("git", "skills/pdf-forms", None)
    assert entry.content_hash == content_hash(result.path)
    assert "Receiving objects" in stages  # git's own progress, parsed for the progress bar
    assert "Copying" in stages
    assert tree(root.parent / ".skillshelf-tmp") == []


def test_install_at_a_tag_gets_the_tagged_files(
    tmp_path: Path, isolated_home: IsolatedHome, repo: Path
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    result = install_skill(f"{repo.as_uri()}@v1#skills/pdf-forms", env=env)
    assert "version one" in (result.path / "SKILL.md").read_text(encoding="utf-8")
    assert result.entry.ref == "v1"
    assert result.entry.commit == git(repo, "rev-parse", "v1^{commit}")


def test_install_at_a_commit_id_and_at_a_branch(
    tmp_path: Path, isolated_home: IsolatedHome, repo: Path
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    first = git(repo, "rev-parse", "v1^{commit}")
    by_commit = install_skill(f"{repo.as_uri()}#skills/pdf-forms@{first[:10]}", env=env, name="pdf-old")
    assert by_commit.entry.commit == first
    assert "version one" in (by_commit.path / "SKILL.md").read_text(encoding="utf-8")
    git(repo, "branch", "stable", "v1")
    by_branch = install_skill(f"{repo.as_uri()}@stable#skills/release-notes", env=env)
    assert by_branch.entry.commit == first


def test_project_scope_installs_into_agents_skills_of_the_project_root(
    tmp_path: Path, isolated_home: IsolatedHome, repo: Path
) -> None:
    project = init_repo(tmp_path / "project")
    (project / "src").mkdir()
    env = make_env(tmp_path, isolated_home.home, cwd=project / "src")
    result = install_skill(f"{repo.as_uri()}#skills/release-notes", env=env, scope="project")
    assert result.path == project / ".agents" / "skills" / "release-notes"
    lock = json.loads((project / ".agents" / "skills" / ".skillshelf-lock.json").read_text(encoding="utf-8"))
    assert list(lock["skills"]) == ["release-notes"]
    assert tree(project / ".agents" / ".skillshelf-tmp") == []


def test_repository_with_several_skills_asks_for_a_subfolder(
    tmp_path: Path, isolated_home: IsolatedHome, repo: Path
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    with pytest.raises(InstallError) as caught:
        install_skill(repo.as_uri(), env=env)
    assert caught.value.code == "IS311"
    assert "#skills/pdf-forms" in caught.value.hint and "#skills/release-notes" in caught.value.hint
    assert tree(Path.home() / ".agents") in ([], ["skills"])


@pytest.mark.parametrize(
    ("suffix", "code"), [("@no-such-tag#skills/pdf-forms", "IS104"), ("#skills/missing", "IS103")]
)
def test_unknown_ref_or_subfolder_installs_nothing(
    tmp_path: Path, isolated_home: IsolatedHome, repo: Path, suffix: str, code: str
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    with pytest.raises(InstallError) as caught:
        install_skill(f"{repo.as_uri()}{suffix}", env=env)
    assert caught.value.code == code
    assert tree(Path.home() / ".agents") in ([], ["skills"])


def test_missing_repository_gives_git_error_with_a_hint(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    env = make_env(tmp_path, isolated_home.home)
    with pytest.raises(InstallError) as caught:
        install_skill((tmp_path / "nowhere.git").as_uri(), env=env)
    assert caught.value.code == "IS112"
    assert "URL" in caught.value.hint


def test_a_repository_without_commits_is_said_to_be_empty(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    with pytest.raises(InstallError) as caught:
        install_skill(init_repo(tmp_path / "empty").as_uri(), env=env)
    assert caught.value.code == "IS113" and "no commits" in caught.value.message
    assert tree(Path.home() / ".agents") in ([], ["skills"])


def test_a_page_url_of_a_branch_with_a_slash_installs_from_that_branch(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = init_repo(tmp_path / "up")
    write_skill(repo / "skills" / "pdf", "pdf", body="from main")
    commit_all(repo, "main")
    git(repo, "tag", "feature")  # a shorter ref the path also starts with
    git(repo, "checkout", "--quiet", "-b", "feature/pdf")
    write_skill(repo / "skills" / "pdf", "pdf", body="from the feature branch")
    commit_all(repo, "feature")
    (isolated_home.home / ".gitconfig").write_text(
        f'[url "{repo.as_uri()}"]\n\tinsteadOf = https://github.com/acme/skills.git\n', encoding="utf-8"
    )
    env = make_env(tmp_path, isolated_home.home)
    result = install_skill("https://github.com/acme/skills/tree/feature/pdf/skills/pdf", env=env)
    assert (result.entry.ref, result.entry.subdir) == ("feature/pdf", "skills/pdf")
    assert "from the feature branch" in (result.path / "SKILL.md").read_text(encoding="utf-8")
    assert result.entry.source == "https://github.com/acme/skills.git@feature/pdf#skills/pdf"


def test_symlink_in_repository_pointing_outside_is_refused(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = init_repo(tmp_path / "sneaky")
    write_skill(repo, "sneaky")
    (repo / "passwd").symlink_to("/etc/passwd")
    commit_all(repo, "link out")
    env = make_env(tmp_path, isolated_home.home)
    with pytest.raises(InstallError) as caught:
        install_skill(repo.as_uri(), env=env)
    assert caught.value.code == "IS302"
    assert not (Path.home() / ".agents" / "skills" / "sneaky").exists()


def test_a_refused_symlink_is_named_by_the_source_and_its_path_there_not_the_work_folder(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = init_repo(tmp_path / "sneaky")
    write_skill(repo / "skills" / "sneaky", "sneaky")
    (repo / "skills" / "sneaky" / "passwd").symlink_to("/etc/passwd")
    commit_all(repo, "link out")
    env = make_env(tmp_path, isolated_home.home)
    with pytest.raises(InstallError) as caught:
        install_skill(f"{repo.as_uri()}#skills/sneaky", env=env)
    assert caught.value.code == "IS302" and ".skillshelf-tmp" not in caught.value.message
    assert caught.value.message.startswith(f"{repo.as_uri()}#skills/sneaky: skills/sneaky/passwd: symlink")

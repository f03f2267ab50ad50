"""A config layer that cannot be read, on the command line: the skills are still listed; the
exit status is 1 only when the layer would be in effect."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit import IsolatedHome, deny_below, run_cli


@pytest.fixture
def project(tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (not trusted) with the skill alpha; the cwd for the test."""
    repo = tmp_path / "repo"
    skill = repo / ".agents" / "skills" / "alpha"
    skill.mkdir(parents=True)
    (repo / ".git").mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: does alpha things\n---\nbody\n", encoding="utf-8"
    )
    monkeypatch.chdir(repo)
    return repo


def _names(out: str) -> set[str]:
    return {line.split("\t")[0] for line in out.splitlines()}


def test_a_broken_config_of_an_untrusted_project_is_shown_but_list_exits_0(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".skillshelf").mkdir()
    (project / ".skillshelf" / "config.toml").write_text("[x\n", encoding="utf-8")
    code, out, err = run_cli(["list", "--no-builtin"], capsys)
    assert code == 0 and _names(out) == {"alpha"}
    assert "warning CF100" in err and "not trusted" in err
    assert run_cli(["trust"], capsys)[0] == 0
    code, out, err = run_cli(["list", "--no-builtin"], capsys)
    assert code == 1 and "error CF100" in err and _names(out) == {"alpha"}


@pytest.mark.parametrize(("where", "status"), [("project", 0), ("user", 1)])
def test_a_config_folder_that_cannot_be_entered_is_a_cf101_finding_not_a_crash(
    project: Path,
    isolated_home: IsolatedHome,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    where: str,
    status: int,
) -> None:
    folder = project / ".skillshelf" if where == "project" else isolated_home.config / "skillshelf"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text("[catalog]\n", encoding="utf-8")
    deny_below(monkeypatch, folder)
    code, out, err = run_cli(["list", "--no-builtin"], capsys)
    assert code == status and _names(out) == {"alpha"}
    assert "CF101" in err and "Permission denied" in err and "internal error" not in err

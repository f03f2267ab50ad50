"""`skillshelf load` lists the bundled files the model's `load_skill` lists: those a read serves
(no hidden or version-control names, no link to a hidden file, no control characters)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from click.testing import CliRunner

from skillshelf.cli.main import cli
from testkit import IsolatedHome


def test_load_lists_only_the_files_a_read_serves(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    skill = repo / ".agents" / "skills" / "demo"
    (skill / "refs").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: demo\ndescription: Demo.\n---\nRead refs/a.md\n", encoding="utf-8"
    )
    (skill / "refs" / "a.md").write_text("a\n", encoding="utf-8")
    (skill / "refs" / "CVS").write_text("x\n", encoding="utf-8")
    (skill / ".private").mkdir()
    (skill / ".private" / "key.md").write_text("secret\n", encoding="utf-8")
    (skill / "refs" / "link.md").symlink_to("../.private/key.md")
    (skill / "refs" / "tab\tx.md").write_text("t\n", encoding="utf-8")
    (skill / "refs" / "b.md").write_text("b\n", encoding="utf-8")
    os.link(skill / "refs" / "b.md", skill / "refs" / "hard.md")  # a read refuses both
    with contextlib.chdir(repo):
        result = CliRunner().invoke(cli, ["load", "demo", "--json", "--no-builtin"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["files"] == ["refs/a.md"]


def test_load_by_a_path_through_a_symlink_names_the_real_skill_md_as_codex_injects_it(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    real = tmp_path / "real" / "tidy"
    real.mkdir(parents=True)
    (real / "SKILL.md").write_text("---\nname: tidy\ndescription: Tidy.\n---\nbody\n", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    with contextlib.chdir(repo):
        result = CliRunner().invoke(
            cli, ["load", str(tmp_path / "link" / "tidy"), "--json", "--no-builtin"], catch_exceptions=False
        )
    assert result.exit_code == 0, result.stderr
    assert f"<path>{real / 'SKILL.md'}</path>" in json.loads(result.stdout)["fragment"]

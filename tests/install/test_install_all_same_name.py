"""``install --all`` on a source holding two skills that want one folder name: the first is
installed, the second is reported failed (``IS305``), with ``--force`` and in a dry run too."""

from __future__ import annotations

from pathlib import Path

import pytest
from install_helpers import make_env, write_skill

from skillshelf.install.many import install_all
from testkit import IsolatedHome


@pytest.mark.parametrize("dry_run", [False, True])
def test_force_never_lets_a_second_skill_of_the_source_replace_the_first(
    tmp_path: Path, isolated_home: IsolatedHome, dry_run: bool
) -> None:
    source = tmp_path / "pack"
    write_skill(source / "one" / "pdf", "pdf", "PDF helper from the first folder of the pack.")
    write_skill(source / "two" / "pdf", "pdf", "PDF helper from the second folder of the pack.")
    env = make_env(tmp_path, isolated_home.home)

    result = install_all(str(source), env=env, target="codex", force=True, dry_run=dry_run)

    assert [r.name for r in result.installed] == ["pdf"]
    assert [(f.folder, f.code) for f in result.failed] == [("two/pdf", "IS305")]
    assert "--name" in result.failed[0].fix
    if not dry_run:
        text = (result.installed[0].path / "SKILL.md").read_text(encoding="utf-8")
        assert "first folder" in text

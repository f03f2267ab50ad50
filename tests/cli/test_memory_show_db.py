"""`skillshelf memory show --db URL`: the summary is a file of the memory folder, but a database
``--db`` names must exist (``ME043``, nothing made), as every other memory command checks it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillshelf.env import Env
from skillshelf.memory.layout import memory_project, project_scope, scope_dir
from skillshelf.memory.store import open_store
from testkit import IsolatedHome
from testkit import run_cli as cli


@pytest.fixture(autouse=True)
def _work(tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git project as the cwd, with a memory summary; no system config layer."""
    monkeypatch.setenv("SKILLSHELF_SYSTEM_CONFIG_DIR", str(tmp_path / "no-system"))
    work = tmp_path / "work"
    (work / ".git").mkdir(parents=True)
    monkeypatch.chdir(work)
    env = Env.from_os()
    folder = scope_dir(env.dirs.data, project_scope(memory_project(env.project_root)))
    folder.mkdir(parents=True)
    (folder / "memory_summary.md").write_text("- tests run with make check\n", encoding="utf-8")
    return work


def test_memory_show_with_a_db_that_does_not_exist_is_me043_and_makes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    typo = tmp_path / "typo.sqlite"
    code, out, err = cli(["memory", "show", "--db", str(typo)], capsys)
    assert code == 1 and "error ME043:" in err and "make check" not in out, err
    assert not typo.exists()
    code, out, _ = cli(["memory", "show", "--db", str(typo), "--json"], capsys)
    assert code == 1 and json.loads(out)["code"] == "ME043"


def test_memory_show_with_an_empty_db_is_me048(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(["memory", "show", "--db", ""], capsys)
    assert code == 2 and "ME048" in err, err


def test_memory_show_with_a_db_that_exists_shows_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = tmp_path / "made.sqlite"
    open_store(str(made)).close()
    code, out, err = cli(["memory", "show", "--db", str(made)], capsys)
    assert code == 0 and "make check" in out, err
    code, out, _ = cli(["memory", "show"], capsys)
    assert code == 0 and "make check" in out

"""Commands run from an odd working folder: a name that is not UTF-8, a folder since deleted."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit import IsolatedHome, bound_by_file_modes, run_cli

COMMANDS = [
    ["list"],
    ["list", "--json"],
    ["search", "release"],
    ["context"],
    ["context", "--raw"],
    ["catalog"],
    ["load", "release-notes"],
    ["deps"],
    ["validate"],
    ["instructions"],
]


@contextlib.contextmanager
def inside(folder: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


@pytest.fixture
def not_utf8(tmp_path: Path, isolated_home: IsolatedHome) -> Path:
    """A git project whose folder name holds the byte 0xFF, with one skill and an AGENTS.md."""
    project = Path(os.fsdecode(os.fsencode(tmp_path) + b"/bad\xffdir"))
    skill = project / ".agents" / "skills" / "release-notes"
    skill.mkdir(parents=True)
    (project / ".git").mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: release-notes\ndescription: Turns merged pull requests into release notes.\n---\nbody\n",
        encoding="utf-8",
    )
    (project / "AGENTS.md").write_text("Keep the changelog short.\n", encoding="utf-8")
    return project


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_every_command_works_in_a_folder_whose_name_is_not_utf8(
    not_utf8: Path, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with inside(not_utf8):
        code, out, err = run_cli(args, capsys)
    assert "internal error" not in err
    assert code == 0, err


def test_the_catalog_and_a_loaded_skill_write_the_undecodable_byte_as_codex_does(
    not_utf8: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with inside(not_utf8):
        _, catalog, _ = run_cli(["catalog"], capsys)
        _, loaded, _ = run_cli(["load", "release-notes", "--json"], capsys)
    assert "/bad\ufffddir/.agents/skills`" in catalog
    assert "<path>" + str(not_utf8).replace("\udcff", "\ufffd") in json.loads(loaded)["fragment"]


def test_a_search_index_of_a_folder_that_is_not_utf8_is_read_back_from_its_cache(
    not_utf8: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with inside(not_utf8):
        first = run_cli(["search", "release", "--json"], capsys)
        second = run_cli(["search", "release", "--json"], capsys)
    assert first[0] == second[0] == 0
    names = [[r["name"] for r in json.loads(out)["results"]] for _, out, _ in (first, second)]
    assert names[0] == names[1] and "release-notes" in names[0]


@pytest.mark.parametrize(
    "args",
    [["list"], ["catalog"], ["context", "--raw"], ["load", "x"], ["instructions"], ["lint-arch"]],
    ids=" ".join,
)
def test_a_deleted_working_folder_is_a_coded_error_with_a_fix(
    tmp_path: Path, isolated_home: IsolatedHome, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    with inside(gone):
        gone.rmdir()
        code, out, err = run_cli(args, capsys)
    assert code == 1
    assert "error SS006: the current folder" in err and "no longer exists" in err
    assert "fix: cd to another folder" in err
    assert "internal error" not in err


def _without_search_rights(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``skillshelf ARGS`` run in ``cwd`` by a process that the folder's mode bits bind (root
    without its capability to bypass them)."""
    prefix = bound_by_file_modes()
    script = "import sys; from skillshelf.cli.entry import main; sys.exit(main())"
    return subprocess.run(
        [*prefix, sys.executable, "-c", script, *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


@pytest.fixture
def unsearchable(tmp_path: Path, isolated_home: IsolatedHome) -> Iterator[Path]:
    """A folder with no permissions at all (mode 000)."""
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0)
    yield folder
    folder.chmod(0o755)


@pytest.mark.parametrize(
    "args",
    [*COMMANDS, ["config", "show"], ["trust"], ["memory", "status"], ["setup", "codex", "--dry-run"]],
    ids=" ".join,
)
def test_a_working_folder_that_cannot_be_searched_is_a_coded_error_with_a_fix(
    unsearchable: Path, args: list[str]
) -> None:
    done = _without_search_rights(args, unsearchable)
    assert done.returncode == 1, done.stderr
    assert f"error SS006: the current folder ({unsearchable}) cannot be searched" in done.stderr
    assert "fix: cd to another folder" in done.stderr and "internal error" not in done.stderr


def test_a_project_folder_named_that_cannot_be_searched_is_a_coded_error(unsearchable: Path) -> None:
    unsearchable.chmod(0o444)  # its names can be listed, none of its files reached
    done = _without_search_rights(["trust", str(unsearchable)], unsearchable.parent)
    assert done.returncode == 1, done.stderr
    assert f"error SS006: the folder {unsearchable} cannot be searched" in done.stderr


@pytest.mark.oracle
def test_a_folder_that_is_not_utf8_is_written_as_codex_writes_it(
    not_utf8: Path,
    isolated_home: IsolatedHome,
    codex_oracle: Callable[..., dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    codex = codex_oracle(not_utf8, home=isolated_home.home, codex_home=isolated_home.codex_home)
    with inside(not_utf8):
        _, catalog, _ = run_cli(["catalog", "--no-builtin"], capsys)
        _, agents, _ = run_cli(["instructions", "--raw"], capsys)
    want = [line for line in codex["skills_instructions"].split("\n") if "bad\ufffddir" in line]
    assert want and all(line.split(" [untrusted")[0] in catalog for line in want)
    assert "- release-notes: " in catalog and agents == codex["agents_md"] + "\n"

"""``--db`` forms: a file path, SQLAlchemy's ``sqlite:///relative/path`` and
``sqlite:////absolute/path``; another ``sqlite:`` shape is ``ME045``, and ``sqlite:///tmp/x``
with no ``tmp`` in the current folder (meant as ``/tmp/x``, most likely) is ``ME046``: neither
makes a file or a folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import run_cli

from skillshelf.errors import UsageError
from skillshelf.memory.store import check_relative_sqlite_url, open_store, sqlite_path


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("sqlite:////srv/state.sqlite", "/srv/state.sqlite"),
        ("sqlite:///data/state.sqlite", "data/state.sqlite"),
        ("sqlite:///./tmp/state.sqlite", "tmp/state.sqlite"),
        ("/srv/state.sqlite", "/srv/state.sqlite"),
        ("state.sqlite", "state.sqlite"),
    ],
)
def test_a_sqlite_url_or_path_names_its_file(url: str, path: str) -> None:
    assert sqlite_path(url) == Path(path)


def test_a_postgres_url_is_no_sqlite_file() -> None:
    assert sqlite_path("postgresql://me@db/memory") is None


@pytest.mark.parametrize(
    "url", ["sqlite://tmp/x.sqlite", "sqlite:/tmp/x.sqlite", "sqlite:x.sqlite", "sqlite:///"]
)
def test_a_sqlite_url_of_another_shape_is_me045(url: str) -> None:
    with pytest.raises(UsageError) as caught:
        sqlite_path(url)
    assert caught.value.code == "ME045" and "sqlite:////ABSOLUTE/PATH" in caught.value.hint


def test_a_relative_sqlite_url_whose_folder_is_only_at_the_root_is_me046(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        check_relative_sqlite_url("sqlite:///tmp/x.sqlite", tmp_path)
    assert caught.value.code == "ME046"
    assert "sqlite:////tmp/x.sqlite" in caught.value.hint and "sqlite:///./tmp/x.sqlite" in caught.value.hint


@pytest.mark.parametrize(
    "url",
    [
        "sqlite:///./tmp/x.sqlite",  # relative on purpose
        "sqlite:////tmp/x.sqlite",
        "sqlite:///state.sqlite",
        "sqlite:///no-such-folder-at-the-root/x.sqlite",
        "/tmp/x.sqlite",
        "postgresql://me@db/memory",
    ],
)
def test_a_sqlite_url_that_says_what_it_means_passes(url: str, tmp_path: Path) -> None:
    check_relative_sqlite_url(url, tmp_path)


def test_a_relative_sqlite_url_whose_folder_is_here_passes(tmp_path: Path) -> None:
    (tmp_path / "tmp").mkdir()
    check_relative_sqlite_url("sqlite:///tmp/x.sqlite", tmp_path)


def test_memory_status_reads_a_four_slash_url_as_an_absolute_path(
    isolated_home: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "abs" / "state.sqlite"
    open_store(str(db)).close()
    code, _, err = run_cli(capsys, "memory", "status", "--db", f"sqlite:///{db}")  # four slashes
    assert code == 0, err


def test_memory_status_reads_a_three_slash_url_from_the_current_folder(
    isolated_home: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    open_store(str(tmp_path / "rel" / "state.sqlite")).close()
    code, _, err = run_cli(capsys, "memory", "status", "--db", "sqlite:///rel/state.sqlite")
    assert code == 0, err


@pytest.mark.parametrize(
    ("url", "code"), [("sqlite:///tmp/skillshelf-x.sqlite", "ME046"), ("sqlite:/tmp/x.sqlite", "ME045")]
)
def test_memory_run_refuses_an_unclear_sqlite_url_and_makes_nothing(
    isolated_home: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    url: str,
    code: str,
) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    exit_code, _, err = run_cli(capsys, "memory", "run", "--dry-run", "--db", url)
    assert exit_code == 2 and f"error {code}:" in err, err
    assert list(here.iterdir()) == []


@pytest.mark.parametrize("before", [True, False])
def test_memory_run_json_prints_a_refused_db_url_as_json_wherever_json_stands(
    isolated_home: Any, capsys: pytest.CaptureFixture[str], before: bool
) -> None:
    args = ["--json", "--db", "sqlite:x"] if before else ["--db", "sqlite:x", "--json"]
    exit_code, out, _ = run_cli(capsys, "memory", "run", "--dry-run", *args)
    assert exit_code == 2
    assert json.loads(out)["code"] == "ME045"

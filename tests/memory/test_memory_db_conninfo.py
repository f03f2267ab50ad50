"""``--db`` given libpq's ``keyword=value`` connection string: it is PostgreSQL (as psycopg
reads it), never a SQLite file named after it, and no message shows its password; a SQLite
file named with a password is not shown with it either."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from memory_helpers import run_cli

from skillshelf.memory.store import open_store, sqlite_path
from skillshelf.memory.store.conninfo import is_conninfo, shown_database
from skillshelf.memory.store.postgres import PostgresStore


def _secret() -> str:
    return "Hunter2" + uuid.uuid4().hex[:10]


@pytest.mark.parametrize(
    "text",
    [
        "host=127.0.0.1 port=5432 user=app password={s} dbname=mem",
        "dbname=mem",
        "host = db.example  dbname='my mem' password='{s} x'",
        "service=memory",
    ],
)
def test_a_libpq_connection_string_is_no_sqlite_file(text: str) -> None:
    conninfo = text.format(s=_secret())
    assert is_conninfo(conninfo)
    assert sqlite_path(conninfo) is None


@pytest.mark.parametrize("name", ["notes=1.sqlite", "state.sqlite", "a b.sqlite", "./host=db", "/srv/x=y"])
def test_a_file_name_that_is_no_connection_string_stays_a_file(name: str) -> None:
    assert sqlite_path(name) == Path(name)


@pytest.mark.parametrize(
    "text",
    [
        "host=h password={s} dbname=m",
        "host=h password = '{s} with spaces' dbname=m",
        "host=h password={s}\\ more dbname=m",
        "host=h password=ab dbname=m",
    ],
)
def test_a_connection_strings_password_is_never_shown(text: str) -> None:
    secret = _secret()
    shown = shown_database(text.format(s=secret))
    assert secret not in shown and "more" not in shown and "=ab" not in shown.replace(" ", "")
    assert shown.startswith("host=h ") and shown.endswith(" dbname=m")


def test_a_libpq_connection_string_opens_the_postgresql_database(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # read as a SQLite file name, it would be made here
    parts = urlsplit(pg_url)
    secret = _secret()  # the test server trusts every local user: the password is not asked for
    conninfo = (
        f"host={parts.hostname} port={parts.port} user={parts.username} "
        f"password={secret} dbname={parts.path.lstrip('/')}"
    )
    with open_store(conninfo) as store:
        assert isinstance(store, PostgresStore)
        assert secret not in store.url and "[REDACTED_SECRET]" in store.url
        with store.transaction() as tx:
            assert tx.execute("SELECT current_database()") == [(parts.path.lstrip("/"),)]


@pytest.mark.parametrize("command", [("run", "--phase", "1"), ("status",)])
def test_memory_commands_given_a_connection_string_write_no_file_and_show_no_password(
    isolated_home: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: tuple[str, ...],
) -> None:
    here, empty = tmp_path / "here", tmp_path / "empty"
    here.mkdir()
    empty.mkdir()
    monkeypatch.chdir(here)
    secret = _secret()
    conninfo = f"host=127.0.0.1 port=1 user=app password={secret} dbname=mem connect_timeout=2"
    sessions = ("--sessions", str(empty)) if command[0] == "run" else ()
    exit_code, out, err = run_cli(capsys, "memory", *command, *sessions, "--db", conninfo)
    assert exit_code == 1 and "error ME010:" in err, err
    assert secret not in out + err
    assert list(here.iterdir()) == []


def test_a_missing_sqlite_file_named_with_a_password_is_said_without_it(
    isolated_home: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = _secret()
    missing = tmp_path / f"password={secret}"
    exit_code, out, err = run_cli(capsys, "memory", "status", "--db", str(missing))
    assert exit_code == 1 and "error ME043:" in err, err
    assert secret not in out + err

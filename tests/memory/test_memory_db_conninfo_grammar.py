"""``--db`` read by libpq's own grammar: a password with a quote or ``://`` in it is part of a
connection string (never a SQLite file named after it, never shown), an existing file whose
name reads as one opens as that file, and an unsupported URL shows only its scheme."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import run_cli

from skillshelf.errors import UsageError
from skillshelf.memory.store import conninfo as conninfo_module
from skillshelf.memory.store import open_store, sqlite_path
from skillshelf.memory.store.conninfo import is_conninfo, shown_database
from skillshelf.memory.store.sqlite import SqliteStore
from testkit import installed


def _secret() -> str:
    return "Hunter2" + uuid.uuid4().hex[:10]


LIBPQ_CASES = [
    "host=127.0.0.1 port=1 user=app password=Sup3r'Secret9 dbname=mem",
    "host=h password=LeakedPart9://rest dbname=mem",
    "host=h password='it\\'s a \\\\ b' dbname=m",
    "host=h password=a\\ b\\'c dbname=m",
    "host='h'port=5 dbname=m",
    "  host  =  h   dbname =m  ",
    "host=h\tdbname=m\npassword=x\\",
    "host= dbname=m",
    "host=/var/run/postgresql dbname=m",
    "notes=1.sqlite",
    "./host=db",
    "host=h PASSWORD=x",
    "host=h password='open",
    "host=h dbname",
    "user=me.sqlite",
]


@pytest.mark.parametrize("text", LIBPQ_CASES)
def test_connection_strings_are_read_as_libpq_reads_them(text: str) -> None:
    psycopg_conninfo = installed("psycopg.conninfo", "psycopg (the [postgres] extra) to compare with libpq")
    try:
        expected: dict[str, str] | None = psycopg_conninfo.conninfo_to_dict(text)
    except Exception:  # psycopg refuses what libpq refuses
        expected = None
    try:
        ours: dict[str, str] | None = {pair.keyword: pair.value for pair in conninfo_module._parse(text)}
    except ValueError:
        ours = None
    if expected is None:  # a fault of the grammar, or a keyword libpq does not know
        assert ours is None or any(key not in conninfo_module.LIBPQ_KEYWORDS for key in ours)
    else:
        assert ours == expected and is_conninfo(text)


def test_libpqs_keywords_are_all_known() -> None:
    pq = installed("psycopg.pq", "psycopg (the [postgres] extra) for the installed libpq's keywords")
    keywords = {option.keyword.decode() for option in pq.Conninfo.get_defaults()}
    assert keywords <= conninfo_module.LIBPQ_KEYWORDS


@pytest.mark.parametrize(
    "template", ["host=127.0.0.1 port=1 user=app password=Sup3r'{s} dbname=mem", "password={s}://rest host=h"]
)
def test_a_password_with_a_quote_or_a_url_separator_is_a_connection_string(template: str) -> None:
    secret = _secret()
    text = template.format(s=secret)
    assert is_conninfo(text) and sqlite_path(text) is None
    assert secret not in shown_database(text)


@pytest.mark.parametrize(
    "template",
    [
        "host=127.0.0.1 port=1 user=app password=Sup3r'{s} dbname=mem connect_timeout=2",
        "host=127.0.0.1 port=1 user=app password=Leaked{s}://rest dbname=mem connect_timeout=2",
    ],
)
@pytest.mark.parametrize("command", ["run", "status"])
def test_memory_commands_open_postgresql_for_such_a_password_and_never_show_it(
    isolated_home: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    template: str,
    command: str,
) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    secret = _secret()
    sessions = ("--sessions", str(tmp_path / "empty")) if command == "run" else ()
    (tmp_path / "empty").mkdir()
    exit_code, out, err = run_cli(capsys, "memory", command, *sessions, "--db", template.format(s=secret))
    assert exit_code == 1 and "error ME010:" in err, err
    assert secret not in out + err and "Leaked" not in out + err
    assert list(here.iterdir()) == []


@pytest.mark.parametrize("url", ["mysql://app:{s}@db/mem", "mine={s}://rest"])
def test_an_unsupported_database_url_shows_no_part_of_a_password(
    isolated_home: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    url: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    secret = _secret()
    exit_code, out, err = run_cli(capsys, "memory", "status", "--db", url.format(s=secret))
    assert exit_code == 2 and "error ME015:" in err, err
    assert secret not in out + err and "Hunter2" not in out + err


@pytest.mark.parametrize("template", ["host=h password='{s} dbname=m", "host=h password={s} dbname"])
def test_a_broken_connection_string_is_refused_not_made_a_file(
    isolated_home: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    template: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    text = template.format(s=_secret())
    with pytest.raises(UsageError) as refused:
        sqlite_path(text)
    assert refused.value.code == "ME015" and "Hunter2" not in str(refused.value)
    (tmp_path / "empty").mkdir()
    exit_code, out, err = run_cli(
        capsys, "memory", "run", "--sessions", str(tmp_path / "empty"), "--db", text
    )
    assert exit_code == 2 and "error ME015:" in err and "Hunter2" not in out + err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["empty", "home"]


def test_an_existing_file_named_like_a_connection_string_opens_as_that_file(
    isolated_home: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    open_store("./user=me.sqlite").close()
    with open_store("user=me.sqlite", create=False) as store:
        assert isinstance(store, SqliteStore)
    exit_code, out, err = run_cli(capsys, "memory", "status", "--db", "user=me.sqlite")
    assert exit_code == 0 and "user=me.sqlite" in out, err


@pytest.mark.parametrize("keyword", ["password", "PASSWORD", "sslpassword", "oauth_client_secret"])
def test_every_secret_keywords_value_is_masked(keyword: str) -> None:
    secret = "ab" + uuid.uuid4().hex[:4]
    shown = shown_database(f"host=h {keyword}={secret} dbname=m")
    assert secret not in shown and shown.startswith("host=h ") and shown.endswith(" dbname=m")


def test_the_db_option_help_names_the_connection_string_form(capsys: pytest.CaptureFixture[str]) -> None:
    exit_code, out, _ = run_cli(capsys, "memory", "status", "--help")
    assert exit_code == 0 and "host=... dbname=..." in " ".join(out.split())

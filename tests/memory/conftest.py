"""Fixtures for the memory tests: a real throwaway PostgreSQL server and a ``store_url`` that
runs the same test against SQLite and PostgreSQL.

The server is a fresh cluster (``initdb``) in a temporary folder, listening on loopback on a
free port with a unix socket in the same folder, started once per test process and stopped at
the end. Every test gets its own database. As root, the cluster runs as the ``postgres`` user
(PostgreSQL refuses to run as root; the child process drops to it, so no ``runuser`` is
needed). Without PostgreSQL binaries the PostgreSQL half is skipped naming what is missing, and
fails under ``CI=true`` (``testkit.missing``).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import ScriptedModel, handler_for

from testkit import missing


@dataclass(frozen=True)
class PgServer:
    host: str
    port: int
    user: str

    def url(self, database: str) -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{database}"


def _pg_bin() -> Path | None:
    found = shutil.which("initdb")
    candidates = ([str(Path(found).resolve().parent)] if found else []) + sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), reverse=True
    )
    for folder in candidates:
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(args: list[str], owner: str | None, *, check: bool = True) -> None:
    """Run a PostgreSQL binary, as ``owner`` when given (root drops to it in the child, so
    nothing beyond the binaries is needed: no ``runuser`` or ``su`` on PATH)."""
    drop: dict[str, Any] = {}
    if owner:
        entry = pwd.getpwnam(owner)
        drop = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": [], "cwd": "/"}
    subprocess.run(args, check=check, capture_output=True, **drop)


def _add_system_user(name: str) -> None:
    useradd = shutil.which("useradd") or next(
        (p for p in ("/usr/sbin/useradd", "/sbin/useradd") if Path(p).exists()), None
    )
    if useradd is None:
        missing(f"no `useradd` to create the {name!r} user PostgreSQL runs as under root")
    subprocess.run([useradd, "--system", "--no-create-home", name], check=True, capture_output=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    bin_dir = _pg_bin()
    if bin_dir is None:
        missing("no PostgreSQL binaries (initdb/pg_ctl) on PATH or in /usr/lib/postgresql/*/bin")
    owner = None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            _add_system_user("postgres")
        owner = "postgres"
    root = Path(tempfile.mkdtemp(prefix="skillshelf-pg-"))
    if owner:
        entry = pwd.getpwnam(owner)
        os.chown(root, entry.pw_uid, entry.pw_gid)
    data = root / "data"
    port = _free_port()
    initdb = [str(bin_dir / "initdb"), "-D", str(data), "-U", "skillshelf", "--auth=trust", "--no-sync"]
    _run([*initdb, "-E", "UTF8"], owner)
    options = (
        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off "
        "-c full_page_writes=off -c max_connections=200"
    )
    pg_ctl = [str(bin_dir / "pg_ctl"), "-D", str(data)]
    _run([*pg_ctl, "-o", options, "-l", str(root / "log"), "-w", "-t", "60", "start"], owner)
    try:
        yield PgServer(host="127.0.0.1", port=port, user="skillshelf")
    finally:
        _run([*pg_ctl, "-m", "immediate", "-w", "stop"], owner, check=False)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server.url("postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield pg_server.url(name)
    with psycopg.connect(pg_server.url("postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The same test against a SQLite file and a PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'memory-state.sqlite'}"
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
def project(isolated_home: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder (a git root) under the isolated home, made the current folder."""
    folder = isolated_home.home / "repo"
    (folder / ".git").mkdir(parents=True)
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def scripted_model() -> Iterator[ScriptedModel]:
    model = ScriptedModel()
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(model))
    server.daemon_threads = True
    model.server = server
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield model
    server.shutdown()
    server.server_close()

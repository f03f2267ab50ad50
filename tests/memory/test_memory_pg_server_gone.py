"""The PostgreSQL store when its server goes away for good in the middle of a run: the lost
connection is tried again once, up to the reconnect budget, and every later unit fails at once
(ME013), so a run holding many sessions ends without paying the pauses again for each.

The server is reached through a loopback relay the test stops: its connections are cut and its
port refuses new ones, as a stopped server's does, while the shared test server goes on.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from memory_helpers import ScriptedModel, write_skillshelf_transcript

from skillshelf.env import Env
from skillshelf.errors import StoreError
from skillshelf.memory.run_report import RunOptions
from skillshelf.memory.service import run_memory
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store.postgres import PostgresStore


class Relay:
    """Forwards loopback connections to ``target`` until :meth:`stop`."""

    def __init__(self, target: tuple[str, int]) -> None:
        self._target = target
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self.port = int(self._listener.getsockname()[1])
        self._open: list[socket.socket] = []
        self._stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                client, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            server = socket.create_connection(self._target)
            self._open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        """Refuse new connections and cut the open ones."""
        self._stopped.set()
        self._listener.close()
        for sock in self._open:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


@pytest.fixture
def relayed(pg_url: str) -> Iterator[tuple[str, Relay]]:
    """``pg_url`` reached through a :class:`Relay`: (its URL, the relay)."""
    parts = urlsplit(pg_url)
    assert parts.hostname is not None and parts.port is not None
    relay = Relay((parts.hostname, parts.port))
    yield urlunsplit(parts._replace(netloc=f"{parts.username}@127.0.0.1:{relay.port}")), relay
    relay.stop()


def _counting(store: PostgresStore) -> list[int]:
    """Count the store's tries to open a connection (one item per try)."""
    tries: list[int] = []
    connect = store._connect

    def counted() -> Any:
        tries.append(1)
        return connect()

    store._connect = counted
    return tries


def test_a_store_whose_server_stays_gone_fails_every_later_unit_without_trying_again(
    relayed: tuple[str, Relay],
) -> None:
    url, relay = relayed
    with PostgresStore(url, reconnects=3, reconnect_delay_s=0.01) as store:
        tries = _counting(store)
        with store.transaction() as tx:
            assert tx.execute("SELECT 1") == [(1,)]
        relay.stop()
        codes = []
        for _ in range(4):
            with pytest.raises(StoreError) as caught, store.transaction() as tx:
                tx.execute("SELECT 1")
            codes.append(caught.value.code)
        assert codes == ["ME013"] * 4
        assert len(tries) == 3  # the budget, spent once


def test_a_run_whose_server_stops_ends_in_me013_after_one_reconnect_budget(
    relayed: tuple[str, Relay], isolated_home: Any, tmp_path: Path, scripted_model: ScriptedModel
) -> None:
    url, relay = relayed
    project = isolated_home.home / "p"
    project.mkdir()
    folder = tmp_path / "t"
    for n in range(6):
        write_skillshelf_transcript(
            folder / f"x{n}.jsonl",
            session_id=f"x{n}",
            cwd=project,
            task=f"task {n}",
            mtime=time.time() - 9 * 3600,
        )
    stopped = threading.Event()

    def stop_server_once(body: dict[str, Any]) -> float:
        if not stopped.is_set():
            stopped.set()
            relay.stop()
        return 0.05

    scripted_model.delay = stop_server_once
    settings = MemorySettings().with_overrides(
        extract_model="openai:m", consolidation_model="openai:m", base_url=scripted_model.url + "/v1"
    )
    env = Env.for_test(cwd=project, home=isolated_home.home, codex_home=isolated_home.codex_home)
    store = PostgresStore(url, reconnect_delay_s=0.01)
    store.migrate(int(time.time() * 1000))
    tries = _counting(store)
    with store, pytest.raises(StoreError) as caught:
        run_memory(env, settings, RunOptions(sessions=(folder,), phase="1"), store=store)
    assert caught.value.code == "ME013"
    assert stopped.is_set() and len(tries) == 5  # not 5 again for each session it held

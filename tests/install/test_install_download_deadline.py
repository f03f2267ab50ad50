"""The download deadline covers the whole request: a server that sends its response headers a
byte at a time (each byte resets the read timeout), before or after a redirect, is given up on
when the deadline passes, not hours later."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from install_helpers import make_env

from skillshelf.errors import InstallError
from skillshelf.install import download as download_module
from skillshelf.install import install_skill
from skillshelf.install.download import download
from testkit import IsolatedHome

#: A server that a broken deadline leaves dripping gives up after this long, so no test hangs.
_DRIP_SECONDS = 10.0


def _answer(conn: socket.socket, stop: threading.Event) -> None:
    """``/hop`` redirects to ``/drip`` at once; ``/drip`` sends a status line and then one byte of
    a header every 50 ms, never ending the headers."""
    with conn:
        request = conn.recv(65536).decode("latin-1")
        if request.startswith(("GET /hop ", "GET /hop.zip ")):
            conn.sendall(b"HTTP/1.1 302 Found\r\nLocation: /drip\r\nContent-Length: 0\r\n\r\n")
            request = conn.recv(65536).decode("latin-1")
        conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        with contextlib.suppress(OSError):
            for _ in range(int(_DRIP_SECONDS / 0.05)):
                if stop.wait(0.05):
                    return
                conn.sendall(b"a")


@pytest.fixture
def dripping_server() -> Iterator[str]:
    stop = threading.Event()
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=_answer, args=(conn, stop), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        listener.close()


@pytest.mark.parametrize("path", ["/drip", "/hop"])
def test_a_server_that_drips_its_headers_is_stopped_at_the_deadline(
    dripping_server: str, tmp_path: Path, path: str
) -> None:
    with pytest.raises(InstallError) as caught:
        download(f"{dripping_server}{path}", tmp_path / "a.zip", None, deadline=0.5, read_timeout=30.0)
    assert caught.value.code == "IS105" and "did not finish in time" in caught.value.message
    assert caught.value.hint


def test_install_from_a_server_that_drips_its_headers_stops_at_the_deadline(
    dripping_server: str, tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(download_module, "DOWNLOAD_SECONDS", 0.5)
    with pytest.raises(InstallError) as caught:
        install_skill(
            f"{dripping_server}/hop.zip", env=make_env(tmp_path, isolated_home.home), target="codex"
        )
    assert caught.value.code == "IS105" and "did not finish in time" in caught.value.message
    assert not (isolated_home.home / ".agents" / "skills").exists() or not any(
        (isolated_home.home / ".agents" / "skills").iterdir()
    )

"""Downloading an archive source: a deadline for the whole download, a refusal of a declared
size over the cap before any byte is read, and progress that says how much has come."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillshelf.errors import InstallError
from skillshelf.install.download import download

_STOP = threading.Event()


class _Trickle(http.server.BaseHTTPRequestHandler):
    """``/slow``: a byte every 50 ms of a large declared body; ``/huge``: a declared body over the
    cap and none sent; ``/mute``: no answer at all; ``/small``: 3000 bytes at once."""

    def do_GET(self) -> None:
        if self.path == "/mute":
            _STOP.wait(10)
            return
        self.send_response(200)
        size = {"/slow": 100_000_000, "/huge": 300 * 1024 * 1024, "/small": 3000}[self.path]
        self.send_header("Content-Length", str(size))
        self.end_headers()
        if self.path == "/small":
            self.wfile.write(b"x" * size)
            return
        while self.path == "/slow" and not _STOP.is_set():
            self.wfile.write(b"x")
            self.wfile.flush()
            time.sleep(0.05)
        _STOP.wait(10)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    _STOP.clear()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Trickle)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        _STOP.set()
        httpd.shutdown()
        httpd.server_close()


def test_a_server_that_trickles_bytes_is_stopped_at_the_deadline(server: str, tmp_path: Path) -> None:
    with pytest.raises(InstallError) as caught:
        download(f"{server}/slow", tmp_path / "a.zip", None, deadline=0.5)
    assert caught.value.code == "IS105" and "did not finish in time" in caught.value.message
    assert "of 100000000" in caught.value.message and caught.value.hint


def test_a_declared_size_over_the_cap_is_refused_before_reading(server: str, tmp_path: Path) -> None:
    with pytest.raises(InstallError) as caught:
        download(f"{server}/huge", tmp_path / "a.zip", None)
    assert caught.value.code == "IS105" and "nothing was downloaded" in caught.value.message
    assert not (tmp_path / "a.zip").exists()


def test_a_server_that_never_answers_is_given_up_on(server: str, tmp_path: Path) -> None:
    with pytest.raises(InstallError) as caught:
        download(f"{server}/mute", tmp_path / "a.zip", None, read_timeout=0.3)
    assert caught.value.code == "IS105" and caught.value.hint


def test_download_progress_says_how_much_has_come(server: str, tmp_path: Path) -> None:
    stages: list[tuple[str, float | None]] = []
    download(f"{server}/small", tmp_path / "a.zip", lambda stage, part: stages.append((stage, part)))
    assert (tmp_path / "a.zip").read_bytes() == b"x" * 3000
    assert stages[-1] == ("Downloading (2 KiB of 2 KiB)", 1.0)

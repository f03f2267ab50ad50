"""Downloading an http(s) archive source, within a size cap and a deadline.

A server can keep a download alive forever by sending a byte now and then, so a timeout on
each read is not enough: the whole download has :data:`DOWNLOAD_SECONDS` to finish, each
connect or read :data:`READ_SECONDS`. The deadline covers the whole request (the name lookup,
each connection, the response headers, every redirect and the body): the request runs in a
worker thread, and when the deadline passes the connections it opened are shut down (which
wakes a read blocked on them) and the install stops with ``IS105`` without waiting for it.
A ``Content-Length`` over the size cap is refused before a byte is read; a body that grows
past it (no or a false length) is stopped there.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillshelf.errors import InstallError
from skillshelf.install.git import ProgressFn

__all__ = ["DOWNLOAD_SECONDS", "MAX_DOWNLOAD_BYTES", "READ_SECONDS", "download"]

MAX_DOWNLOAD_BYTES = 200 * 1024 * 1024
#: The whole download's deadline (a skill archive is small; 200 MiB at 2 MiB/s fits).
DOWNLOAD_SECONDS = 120.0
#: The longest wait for a connection or for the next bytes.
READ_SECONDS = 30.0
#: How long the worker may take to stop after its connections were shut down at the deadline.
_STOP_SECONDS = 2.0
_TOO_BIG_HINT = "a skill archive should be small; check the URL"
_TOO_SLOW_HINT = (
    "the server is too slow or stalls; try again later, or download the archive yourself and install the file"
)


def download(
    url: str,
    target: Path,
    progress: ProgressFn | None,
    *,
    deadline: float | None = None,
    read_timeout: float = READ_SECONDS,
    max_bytes: int = MAX_DOWNLOAD_BYTES,
) -> Path:
    """Download ``url`` into the file ``target``; return ``target``.

    Raises:
        InstallError: (IS105) the server fails, is too slow (past ``deadline`` seconds in all,
            headers and redirects included; None: :data:`DOWNLOAD_SECONDS`), or ``read_timeout``
            seconds without a byte) or sends more than ``max_bytes``.
    """
    ends = time.monotonic() + (DOWNLOAD_SECONDS if deadline is None else deadline)
    opened: list[socket.socket] = []
    failure: list[BaseException] = []
    finished = threading.Event()
    seen = _Seen()

    def run() -> None:
        try:
            _request(
                url,
                target,
                progress,
                ends=ends,
                read_timeout=read_timeout,
                max_bytes=max_bytes,
                opened=opened,
                seen=seen,
            )
        except BaseException as exc:  # handed to the caller's thread
            failure.append(exc)
        finally:
            finished.set()

    worker = threading.Thread(target=run, name="skillshelf-download", daemon=True)
    worker.start()
    if not finished.wait(max(0.0, ends - time.monotonic())):
        for sock in opened:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        finished.wait(_STOP_SECONDS)
        raise _too_slow(url, seen)
    if failure:
        raise failure[0]
    return target


def _request(
    url: str,
    target: Path,
    progress: ProgressFn | None,
    *,
    ends: float,
    read_timeout: float,
    max_bytes: int,
    opened: list[socket.socket],
    seen: _Seen,
) -> None:
    """The request itself (in the worker thread): each connection it opens is added to
    ``opened``, so that the caller can shut it down at the deadline; past the deadline, the
    next step of the request (a redirect's new connection, say) stops it."""
    import httpx

    def trace(event: str, info: dict[str, Any]) -> None:
        if time.monotonic() > ends:
            raise _too_slow(url, seen)
        if event == "connection.connect_tcp.complete":
            sock = info["return_value"].get_extra_info("socket")
            if isinstance(sock, socket.socket):
                opened.append(sock)

    try:
        with (
            httpx.Client(follow_redirects=True, timeout=read_timeout) as client,
            client.stream("GET", url, extensions={"trace": trace}) as response,
        ):
            response.raise_for_status()
            total = seen.total = _declared_length(response.headers.get("content-length"))
            seen.headers = True
            if total > max_bytes:
                raise InstallError(
                    f"{url} is {total} bytes, larger than {max_bytes}; nothing was downloaded",
                    hint=_TOO_BIG_HINT,
                    code="IS105",
                )
            _save(response.iter_bytes(), target, url, progress, seen=seen, ends=ends, max_bytes=max_bytes)
    except httpx.HTTPError as exc:
        raise InstallError(
            f"could not download {url}: {exc}",
            hint="check the URL and your network connection",
            code="IS105",
        ) from exc


@dataclass(slots=True)
class _Seen:
    """What has come so far (written by the worker, read at the deadline)."""

    headers: bool = False
    done: int = 0
    total: int = 0


def _too_slow(url: str, seen: _Seen) -> InstallError:
    """``IS105``: the deadline passed before the download was complete."""
    got = f"{seen.done} bytes{f' of {seen.total}' if seen.total else ''} received"
    return InstallError(
        f"{url}: the download did not finish in time ({got if seen.headers else 'no complete answer yet'}); "
        "download stopped",
        hint=_TOO_SLOW_HINT,
        code="IS105",
    )


def _declared_length(header: str | None) -> int:
    """The ``Content-Length`` as a number (0: not given or not a number)."""
    text = (header or "").strip()
    return int(text) if text.isascii() and text.isdigit() else 0


def _save(
    chunks: Iterator[bytes],
    target: Path,
    url: str,
    progress: ProgressFn | None,
    *,
    seen: _Seen,
    ends: float,
    max_bytes: int,
) -> None:
    """Write the body's ``chunks`` to ``target`` (counted in ``seen``), stopping at the deadline
    ``ends`` or the cap."""
    total = seen.total
    with open(target, "wb") as out:
        for chunk in chunks:
            out.write(chunk)
            seen.done += len(chunk)
            done = seen.done
            if done > max_bytes:
                raise InstallError(
                    f"{url} is larger than {max_bytes} bytes; download stopped",
                    hint=_TOO_BIG_HINT,
                    code="IS105",
                )
            if time.monotonic() > ends:
                raise _too_slow(url, seen)
            if progress is not None:
                shown = f"Downloading ({done // 1024} KiB{f' of {total // 1024} KiB' if total else ''})"
                progress(shown, done / total if total else None)

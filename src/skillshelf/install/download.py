"""Downloading an http(s) archive source, within a size cap and a deadline.

A server can keep a download alive forever by sending a byte now and then, so a timeout on
each read is not enough: the whole download has :data:`DOWNLOAD_SECONDS` to finish, each
connect or read :data:`READ_SECONDS`. A ``Content-Length`` over the size cap is refused before
a byte is read; a body that grows past it (no or a false length) is stopped there.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from skillshelf.errors import InstallError
from skillshelf.install.git import ProgressFn

__all__ = ["DOWNLOAD_SECONDS", "MAX_DOWNLOAD_BYTES", "READ_SECONDS", "download"]

MAX_DOWNLOAD_BYTES = 200 * 1024 * 1024
#: The whole download's deadline (a skill archive is small; 200 MiB at 2 MiB/s fits).
DOWNLOAD_SECONDS = 120.0
#: The longest wait for a connection or for the next bytes.
READ_SECONDS = 30.0
_TOO_BIG_HINT = "a skill archive should be small; check the URL"


def download(
    url: str,
    target: Path,
    progress: ProgressFn | None,
    *,
    deadline: float = DOWNLOAD_SECONDS,
    read_timeout: float = READ_SECONDS,
    max_bytes: int = MAX_DOWNLOAD_BYTES,
) -> Path:
    """Download ``url`` into the file ``target``; return ``target``.

    Raises:
        InstallError: (IS105) the server fails, is too slow (past ``deadline`` seconds in all,
            or ``read_timeout`` seconds without a byte) or sends more than ``max_bytes``.
    """
    import httpx

    ends = time.monotonic() + deadline
    try:
        with httpx.stream("GET", url, follow_redirects=True, timeout=read_timeout) as response:
            response.raise_for_status()
            total = _declared_length(response.headers.get("content-length"))
            if total > max_bytes:
                raise InstallError(
                    f"{url} is {total} bytes, larger than {max_bytes}; nothing was downloaded",
                    hint=_TOO_BIG_HINT,
                    code="IS105",
                )
            _save(response.iter_bytes(), target, url, progress, total=total, ends=ends, max_bytes=max_bytes)
    except httpx.HTTPError as exc:
        raise InstallError(
            f"could not download {url}: {exc}",
            hint="check the URL and your network connection",
            code="IS105",
        ) from exc
    return target


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
    total: int,
    ends: float,
    max_bytes: int,
) -> None:
    """Write the body's ``chunks`` to ``target``, stopping at the deadline ``ends`` or the cap."""
    done = 0
    with open(target, "wb") as out:
        for chunk in chunks:
            out.write(chunk)
            done += len(chunk)
            if done > max_bytes:
                raise InstallError(
                    f"{url} is larger than {max_bytes} bytes; download stopped",
                    hint=_TOO_BIG_HINT,
                    code="IS105",
                )
            if time.monotonic() > ends:
                raise InstallError(
                    f"{url}: the download did not finish in time ({done} bytes"
                    f"{f' of {total}' if total else ''} received); download stopped",
                    hint="the server is too slow or stalls; try again later, or download the archive "
                    "yourself and install the file",
                    code="IS105",
                )
            if progress is not None:
                shown = f"Downloading ({done // 1024} KiB{f' of {total // 1024} KiB' if total else ''})"
                progress(shown, done / total if total else None)

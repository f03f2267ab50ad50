"""Reading a skill's files from disk: capped, non-blocking, decoded with diagnostics.

``SKILL.md`` and ``agents/openai.yaml`` are read only when they are regular files (a FIFO or
device cannot hang a scan), never past their caps, and bytes that are not UTF-8 text become a
diagnostic instead of an exception. :mod:`skillshelf.skills.parse` turns the text into a skill.
"""

from __future__ import annotations

import os
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.fileio import open_regular

__all__ = ["MAX_OPENAI_YAML_BYTES", "decode_text", "file_size", "read_limited", "read_openai_yaml"]

MAX_OPENAI_YAML_BYTES = 256 * 1024


def read_limited(path: Path | str, limit: int) -> bytes:
    """At most ``limit + 1`` bytes (so the caller can tell the file was over the cap).

    The file is opened without blocking and must be a regular file, so a FIFO or device named
    ``SKILL.md`` cannot hang a scan.
    """
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        # read(limit + 1) would allocate the whole cap for every small file
        return handle.read(min(size, limit) + 1) if size <= limit else handle.read(limit + 1)


def decode_text(data: bytes, path: Path, out: list[Diagnostic]) -> str | None:
    looks_binary = b"\x00" in data[:8192] and not data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"---")
    if looks_binary:
        out.append(
            diagnostic(
                "SK114",
                Severity.ERROR,
                "the file is binary (it contains NUL bytes), not markdown",
                "replace it with a text SKILL.md",
                path,
            )
        )
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        out.append(
            diagnostic(
                "SK115",
                Severity.ERROR,
                f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
                "save the file as UTF-8",
                path,
                line,
            )
        )
        return None


def file_size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def read_openai_yaml(path: Path, out: list[Diagnostic]) -> str | None:
    try:
        data = read_limited(path, MAX_OPENAI_YAML_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if isinstance(exc, NotADirectoryError):
            return None
        out.append(
            diagnostic(
                "SK117",
                Severity.WARNING,
                f"agents/openai.yaml cannot be read: {exc.strerror}",
                "make the file readable or remove it",
                path,
            )
        )
        return None
    if len(data) > MAX_OPENAI_YAML_BYTES:
        out.append(
            diagnostic(
                "SK117",
                Severity.WARNING,
                f"agents/openai.yaml is larger than {MAX_OPENAI_YAML_BYTES:,} bytes; ignored",
                "keep agents/openai.yaml small",
                path,
            )
        )
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        out.append(
            diagnostic(
                "SK117",
                Severity.WARNING,
                "agents/openai.yaml is not valid UTF-8; ignored",
                "save it as UTF-8",
                path,
            )
        )
        return None

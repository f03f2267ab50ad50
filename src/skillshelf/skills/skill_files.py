"""Reading a skill's files from disk: capped, non-blocking, decoded with diagnostics.

``SKILL.md`` and ``agents/openai.yaml`` are read only when they are regular files (a FIFO or
device cannot hang a scan), never past their caps, and bytes that are not UTF-8 text become a
diagnostic instead of an exception. :mod:`skillshelf.skills.parse` turns the text into a skill.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.fileio import NotRegularFile, open_regular
from skillshelf.skills.frontmatter import split_frontmatter

__all__ = [
    "CLAUDE_MAX_FILE_BYTES",
    "CODEX_MAX_FILE_BYTES",
    "MAX_OPENAI_YAML_BYTES",
    "cut_note",
    "decode_text",
    "file_size",
    "over_agent_cap",
    "read_head",
    "read_head_text",
    "read_limited",
    "read_openai_yaml",
    "whole_characters",
]

MAX_OPENAI_YAML_BYTES = 256 * 1024
# The largest SKILL.md each agent lists, measured: Codex 0.171.0 reads the whole file (as UTF-8)
# and lists one of 536,870,912 bytes, not one a byte larger; Claude Code 2.1.197 lists one of
# 1,000,000 bytes, not one of 1,000,001.
CODEX_MAX_FILE_BYTES = 512 * 1024 * 1024
CLAUDE_MAX_FILE_BYTES = 1_000_000


def read_head(path: Path | str, limit: int) -> tuple[bytes, int]:
    """At most ``limit + 1`` bytes (so the caller can tell the file was over the cap), and the
    file's size: a file of any size costs no more than ``limit + 1`` bytes.

    The file is opened without blocking and must be a regular file, so a FIFO or device named
    ``SKILL.md`` cannot hang a scan; a socket, which cannot be opened at all (``ENXIO``), is
    :class:`~skillshelf.fileio.NotRegularFile` too, like a FIFO.
    """
    try:
        handle = open_regular(path)
    except OSError as exc:
        if exc.errno == errno.ENXIO and _is_socket(path):
            raise NotRegularFile(errno.EINVAL, "not a regular file (a socket)", str(path)) from None
        raise
    with handle:
        size = os.fstat(handle.fileno()).st_size
        # read(limit + 1) would allocate the whole cap for every small file
        return handle.read(min(size, limit) + 1), size


def _is_socket(path: Path | str) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


def read_limited(path: Path | str, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of the regular file ``path`` (:func:`read_head`)."""
    return read_head(path, limit)[0]


def whole_characters(data: bytes) -> bytes:
    """``data`` without the UTF-8 sequence a cut left incomplete at its end (if any)."""
    for back in range(1, min(4, len(data)) + 1):
        lead = data[-back]
        if lead & 0xC0 != 0x80:  # ASCII or the first byte of a sequence
            need = 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
            return data if need <= back else data[:-back]
    return data


def read_head_text(path: Path | str, limit: int) -> tuple[str, int]:
    """The text of the first ``limit`` bytes of ``path`` (whole characters; bytes that are not
    UTF-8 replaced) and the file's size. Raises ``OSError`` (:class:`NotRegularFile` too)."""
    data, size = read_head(path, limit)
    if len(data) > limit:
        data = whole_characters(data[:limit])
    return data.decode("utf-8", errors="replace"), size


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


def over_agent_cap(path: Path, size: int, *, claude: bool) -> Diagnostic | None:
    """SK113 when the file is larger than Codex (or Claude Code: ``claude``) lists at all."""
    agent, cap = ("Claude Code", CLAUDE_MAX_FILE_BYTES) if claude else ("Codex", CODEX_MAX_FILE_BYTES)
    if size <= cap:
        return None
    return diagnostic(
        "SK113",
        Severity.ERROR,
        f"the file is {size:,} bytes, more than the {cap:,} bytes {agent} reads of a SKILL.md; "
        f"{agent} does not list it, skipped",
        "move long material into references/ files and keep SKILL.md short",
        path,
    )


def cut_note(text: str, path: Path, size: int, max_bytes: int) -> Diagnostic:
    """The file is read from its first ``max_bytes``: SK113 (skipped) when its frontmatter does
    not end there, else the SK119 warning that its body is cut.

    Codex reads the whole file: with a frontmatter that ends further on (a description of a
    million characters), Codex 0.171.0 lists the skill, its description cut to 1,021 characters
    and ``...``, and loads it on ``$name``; with one that never ends, it skips it too (measured
    with codex-oracle and ``codex exec``). Which one a file holds is past what is read here, so
    SK113 says both."""
    if split_frontmatter(text.removeprefix("\ufeff")) == "unclosed":
        return diagnostic(
            "SK113",
            Severity.ERROR,
            f"the file is {size:,} bytes and its frontmatter does not end within the first "
            f"{max_bytes:,} bytes, all skillshelf reads of a file this large; skipped here, but if the "
            "frontmatter ends further on, Codex (which reads the whole file) still lists the skill (a "
            "description over 1,024 characters cut to 1,021 and '...') and loads it on its $name",
            f"end the frontmatter within the first {max_bytes:,} bytes (Codex shows only a description's "
            "first 1,024 characters): move the rest of a long description or field into the body or "
            "references/ files, so skillshelf lists the skill as Codex does",
            path,
        )
    return diagnostic(
        "SK119",
        Severity.WARNING,
        f"the file is {size:,} bytes: listed from its frontmatter, read from its first {max_bytes:,} "
        "bytes; a mention or pin puts only those in the context, and search indexes only those",
        "move long material into references/ files and keep SKILL.md short",
        path,
    )

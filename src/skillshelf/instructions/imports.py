"""Claude Code's ``@path`` imports and the text clean-up done before a CLAUDE.md reaches the model.

What counts as an import (checked against ``claude-oracle``): ``@`` at the start of a line or
after whitespace (or directly inside ``*``/``_`` emphasis), outside fenced/indented code, inline
code spans and HTML comments; the path runs to the next whitespace (``\\ `` escapes a space);
a ``#fragment`` is dropped. Paths start with ``./``, ``~/``, ``/`` or a letter, digit, ``.``,
``_`` or ``-``; relative paths resolve against the importing file's folder. Punctuation right
after a path is part of it (so ``@a.md,`` names a file ``a.md,``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["BINARY_EXTENSIONS", "clean_text", "extract_imports", "resolve_import", "strip_front_matter"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_IMPORT = re.compile(r"(?:^|(?<=\s))([*_]*)@((?:[^\s\\]|\\ )+)")
_VALID_BARE = re.compile(r"^[a-zA-Z0-9._-]")
_SPECIAL_START = re.compile(r"^[#%^&*()]+")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_COMMENT_START = re.compile(r"^ {0,3}<!--")
_COMMENT = re.compile(r"<!--.*?-->", re.S)

#: Imports of files with these extensions are skipped: they are not text.
BINARY_EXTENSIONS = frozenset(
    {
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".webp",
        ".bmp",
        ".ico",
        ".tiff",
        ".svgz",
        ".pdf",
        ".zip",
        ".gz",
        ".tgz",
        ".bz2",
        ".xz",
        ".7z",
        ".rar",
        ".tar",
        ".jar",
        ".class",
        ".exe",
        ".dll",
        ".so",
        ".dylib",
        ".o",
        ".a",
        ".bin",
        ".dat",
        ".db",
        ".sqlite",
        ".sqlite3",
        ".wasm",
        ".pyc",
        ".mp3",
        ".mp4",
        ".wav",
        ".ogg",
        ".flac",
        ".mov",
        ".avi",
        ".mkv",
        ".webm",
        ".woff",
        ".woff2",
        ".ttf",
        ".otf",
        ".eot",
        ".psd",
        ".ai",
        ".sketch",
        ".heic",
    }
)


def strip_front_matter(text: str) -> tuple[str, str | None]:
    """``(body, front_matter_source)``: a leading ``---`` block is removed from the body."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return text, None
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            return "\n".join(lines[index + 1 :]), "\n".join(lines[1:index])
    return text, None


def clean_text(text: str) -> str:
    """Normalise line endings and drop HTML comments that open a block (Claude Code hides
    them from the model): ``<!-- x --> rest`` keeps `` rest``, a comment-only block goes."""
    out: list[str] = []
    lines = text.replace("\r\n", "\n").split("\n")
    index = 0
    in_fence: str | None = None
    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence and (in_fence is None or fence.group(1)[0] == in_fence[0]):
            in_fence = None if in_fence else fence.group(1)
        if in_fence is None and _COMMENT_START.match(line):
            end = index
            while (
                end < len(lines)
                and "-->" not in lines[end][(line.index("<!--") + 4) if end == index else 0 :]
            ):
                end += 1
            if end < len(lines):
                rest = _COMMENT.sub("", "\n".join(lines[index : end + 1]))
                if rest.strip():
                    out.append(rest)
                index = end + 1
                continue
        out.append(line)
        index += 1
    return "\n".join(out)


def _prose_lines(text: str) -> list[str]:
    """Lines outside code blocks, with inline code spans blanked."""
    prose: list[str] = []
    fence: str | None = None
    previous_blank = True
    in_indented = False
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        blank = not line.strip()
        indented = line.startswith(("    ", "\t")) and not blank
        in_indented = indented and (previous_blank or in_indented)
        if not in_indented:
            prose.append(_COMMENT.sub(" ", _CODE_SPAN.sub(" ", line)))
        previous_blank = blank
    return prose


def extract_imports(text: str) -> list[str]:
    """The raw import paths in ``text``, in order of appearance (duplicates kept)."""
    found: list[str] = []
    for line in _prose_lines(text):
        for match in _IMPORT.finditer(line):
            emphasis, path = match.group(1), match.group(2)
            if emphasis:
                closing = emphasis[::-1]
                if not path.endswith(closing):
                    continue
                path = path[: -len(closing)]
            path = path.split("#", 1)[0].replace("\\ ", " ")
            if path and _valid(path):
                found.append(path)
    return found


def _valid(path: str) -> bool:
    if path.startswith(("./", "~/")) or (path.startswith("/") and path != "/"):
        return True
    return not path.startswith("@") and not _SPECIAL_START.match(path) and bool(_VALID_BARE.match(path))


def resolve_import(raw: str, *, importer: Path, home: Path) -> Path:
    """The absolute, normalised path an import names."""
    if raw.startswith("~/"):
        target = home / raw[2:]
    elif raw.startswith("/"):
        target = Path(raw)
    else:
        target = importer.parent / raw
    return Path(os.path.normpath(target))

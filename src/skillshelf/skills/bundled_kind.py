"""Whether a bundled file is text, judged the same way by every read and listing.

A file is text when its first :data:`TEXT_JUDGED_BYTES` (all of it a tool reads: as far as
``read_skill_file`` reads into a file) hold no NUL byte and are valid UTF-8, a character cut at
that bound aside (:func:`binary_reason`); anything else is binary. A read serves text as it is
(never a replacement character) and a binary file whole, as base64, or, over the read's cap, not
at all, so a listing names a file over the cap only when it is text (:func:`fits_a_read`).
"""

from __future__ import annotations

import codecs
import os
from pathlib import Path, PurePosixPath

from skillshelf.errors import SkillshelfError
from skillshelf.skills.confined import open_beneath
from skillshelf.skills.model import MAX_SKILL_BYTES

__all__ = ["TEXT_JUDGED_BYTES", "binary_reason", "fits_a_read"]

TEXT_JUDGED_BYTES = MAX_SKILL_BYTES
"""The first bytes of a file that decide whether it is text (all of them a tool reads, as far as
``read_skill_file`` reads into a file): text when they hold no NUL byte and are valid UTF-8."""


def binary_reason(head: bytes, *, cut: bool) -> str | None:
    """Why a file whose first bytes are ``head`` (``cut``: more follow) is binary, or None when it
    is text: no NUL byte and valid UTF-8, a multi-byte character cut at the end of a ``cut`` head
    aside. Read :data:`TEXT_JUDGED_BYTES` of a file (and one more, for ``cut``) to judge it as
    every read judges it."""
    nul = head.find(b"\x00")
    if nul >= 0:
        return f"it holds a NUL byte at byte {nul:,}"
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=not cut)
    except UnicodeDecodeError as exc:
        return f"it is not UTF-8 text: byte {exc.start:,} is not part of a UTF-8 character"
    return None


def fits_a_read(folder: Path, relative: str, *, max_bytes: int) -> bool:
    """Whether a read of ``relative`` (a file :func:`~skillshelf.skills.bundled.listable` in
    ``folder``) with a cap of ``max_bytes`` serves it: any file within the cap; a larger one only
    when it is text (read in pieces), a binary one over the cap being refused (``SV413``). Reads
    the first :data:`TEXT_JUDGED_BYTES` of a file over the cap only, to judge it as a read does."""
    try:
        if os.stat(folder / relative).st_size <= max_bytes:
            return True
        fd = open_beneath(folder, PurePosixPath(relative).parts, relative)
        judged = max(max_bytes, TEXT_JUDGED_BYTES)
        with os.fdopen(fd, "rb") as handle:
            head = handle.read(judged + 1)
    except (OSError, SkillshelfError):
        return False
    return len(head) <= max_bytes or binary_reason(head[:judged], cut=len(head) > judged) is None

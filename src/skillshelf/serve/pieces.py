"""Texts longer than one tool answer, served in pieces.

A tool answer (MCP ``load_skill``, ``read_skill_file`` and ``resources/read``; the same calls
through the OpenAI / Anthropic dispatch and the reference agent) carries at most
``max_file_bytes`` of a file's text (256 KiB by default, about 65,000 tokens: more than a model
uses well in one answer). A longer text is cut at a character boundary, never silently: the
answer ends with a note (:data:`CUT_CODE`) saying how much was served of how much, and the
``read_skill_file`` call (``offset``) that reads on from there, :func:`read_piece`. A piece
starts within the first :data:`MAX_OFFSET` bytes of a file: a ``SKILL.md`` is its first
:data:`~skillshelf.skills.model.MAX_SKILL_BYTES` (``SK119``, as ``skillshelf load`` and
``context`` cut it), and a bundled file past that is read from disk, not through a model.
"""

from __future__ import annotations

import dataclasses

from skillshelf.errors import FileAccessError
from skillshelf.skills.bundled import SkillFile, discovered_folder, read_confined_file
from skillshelf.skills.defuse import defused
from skillshelf.skills.load import injected_path
from skillshelf.skills.model import MAX_SKILL_BYTES, Skill

__all__ = ["CUT_CODE", "MAX_OFFSET", "load_cut_note", "next_offset", "piece_note", "read_piece", "skill_size"]

CUT_CODE = "SV414"
MAX_OFFSET = MAX_SKILL_BYTES
"""The furthest ``read_skill_file`` reads into a file: a piece starts before this byte and ends
at it at the latest (also :data:`~skillshelf.skills.bundled.TEXT_JUDGED_BYTES`, the part of a
file that decides whether it is text)."""

_CONTINUATION = range(0x80, 0xC0)  # a UTF-8 byte that does not start a character
_MAX_CHAR = 4  # the most bytes a UTF-8 character takes


def skill_size(skill: Skill) -> int:
    """The bytes of ``skill``'s ``SKILL.md`` as it is now (0 when it cannot be looked at)."""
    try:
        return injected_path(skill).stat().st_size
    except OSError:
        return 0


def _read_on(name: str, path: str, offset: int) -> str:
    return f"read_skill_file name={name!r} path={path!r} offset={offset}"


def _past_skill(size: int) -> str:
    return (
        f" Only its first {MAX_SKILL_BYTES:,} bytes are the skill's text (SK119: shorten the SKILL.md, "
        "move long parts to files it names)."
        if size > MAX_SKILL_BYTES
        else ""
    )


def load_cut_note(name: str, key: str, *, shown: int, size: int) -> str:
    """The note after a ``load_skill`` answer whose text was cut after ``shown`` bytes of the
    ``size`` of its ``SKILL.md``: where, and the call that reads on (``key``: the name or path
    ``load_skill`` took)."""
    return (
        f"({CUT_CODE}: the text of {name} was cut after its first {shown:,} of {size:,} bytes, the most "
        f"one tool answer carries. Fix: read on with {_read_on(key, 'SKILL.md', shown)} when the part "
        f"shown does not cover the task.{_past_skill(size)})"
    )


def next_offset(file: SkillFile, *, offset: int, shown: int) -> int | None:
    """Where ``read_skill_file`` reads on after a piece of ``file`` (``shown`` bytes from
    ``offset``): None when nothing is left, or the rest is past :data:`MAX_OFFSET` (a piece
    ending within a character's width of it ends at the last character that fits,
    :func:`read_piece`)."""
    end = offset + shown
    return end if file.truncated and end <= MAX_OFFSET - _MAX_CHAR else None


def piece_note(file: SkillFile, *, name: str, offset: int, shown: int) -> str:
    """The note after a ``read_skill_file`` piece of ``file`` (``shown`` bytes from ``offset``):
    where it was cut, the call that reads on, or that the rest is past :data:`MAX_OFFSET`."""
    end = next_offset(file, offset=offset, shown=shown)
    head = f"[{CUT_CODE}: bytes {offset:,} to {offset + shown:,} of {file.size:,} of {file.path}; "
    if end is not None:
        return head + f"read on with {_read_on(name, file.path, end)}]"
    return head + f"a tool reads no further than byte {MAX_OFFSET:,}: read the rest from disk]"


def read_piece(skill: Skill, path: str, *, offset: int, max_bytes: int) -> tuple[SkillFile, int, int]:
    """Up to ``max_bytes`` of the text of ``path`` (in ``skill``'s folder, read confined as
    :func:`~skillshelf.skills.bundled.read_bundled_file` reads it) from byte ``offset``, moved on
    to a character's start; the offset the piece starts at and its length in the file's bytes.
    Nothing past byte :data:`MAX_OFFSET` is served: a piece that would run past it (or end within
    a character's width of it) ends at the last character that fits before it. ``truncated``
    when the file goes on after the piece. An untrusted skill's piece is defused. A binary file
    (:func:`~skillshelf.skills.bundled.binary_reason`, judged on the file's start, the same for
    every piece) comes whole (base64) from offset 0.

    Raises:
        FileAccessError: ``offset`` is at or past :data:`MAX_OFFSET` (``SV413``), or it is not 0
            for a binary file (``SV400``).
        SkillshelfError: what a confined read raises (hidden, escaping, hard-linked, missing).
    """
    if offset >= MAX_OFFSET:
        raise FileAccessError(
            f"offset {offset:,} is at or past byte {MAX_OFFSET:,}, the furthest a tool reads into a file",
            hint="read the file directly from disk if you really need its end",
            code="SV413",
        )
    stop = offset + max_bytes
    if stop > MAX_OFFSET - _MAX_CHAR:
        stop = MAX_OFFSET
    whole = read_confined_file(
        discovered_folder(skill),
        path,
        skill=skill.name,
        max_bytes=stop,
        exact=True,
        max_binary_bytes=max_bytes,
    )
    if whole.text is None:
        if offset:
            raise FileAccessError(
                f"{path!r} is a binary file: it is read whole (base64) or not at all",
                hint="call read_skill_file without an offset",
                code="SV400",
            )
        return whole, 0, whole.size
    data = whole.text.encode("utf-8")
    start = min(offset, len(data))
    while start < len(data) and data[start] in _CONTINUATION:
        start += 1
    piece = data[start:stop].decode("utf-8", errors="ignore")
    shown = len(piece.encode("utf-8"))
    rest = whole.truncated or start + shown < len(data)
    text = piece if skill.trusted else defused(piece)
    return dataclasses.replace(whole, text=text, truncated=rest), start, shown

"""Redaction of a stream too large to hold: ``skillshelf redact`` reads its input in pieces.

The input is cut into line-aligned pieces of about :data:`PIECE_BYTES` (a line longer than
:data:`MAX_LINE_BYTES` is cut there) and each is redacted as it arrives, so memory stays
bounded and the output starts before the input ends. What crosses a cut still goes: a private
key split by one is removed in both pieces (its body without a ``BEGIN`` line is caught as the
tail of a key, as in a key split over two records), and a secret found in one piece is also
replaced where a later piece repeats it bare. Only a bare repeat *before* the piece that reveals
the secret is missed, in input over 4 MB.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from skillshelf.memory.redact import Redaction, redact
from skillshelf.memory.redact.echoes import NO_SECRETS, KnownSecrets

__all__ = ["MAX_LINE_BYTES", "PIECE_BYTES", "pieces", "redact_stream"]

PIECE_BYTES = 4 * 1024 * 1024
MAX_LINE_BYTES = 16 * 1024 * 1024


def pieces(stream: BinaryIO, *, size: int = PIECE_BYTES, max_line: int = MAX_LINE_BYTES) -> Iterator[bytes]:
    """``stream``'s bytes, whole lines at a time, in pieces of ``size`` bytes or a little more."""
    piece = bytearray()
    while line := stream.readline(max_line):
        piece += line
        if len(piece) >= size:
            yield bytes(piece)
            piece.clear()
    if piece:
        yield bytes(piece)


def redact_stream(
    stream: BinaryIO, *, high_entropy: bool = True, size: int = PIECE_BYTES
) -> Iterator[Redaction]:
    """Each piece of ``stream`` redacted (see the module docstring), in order; bytes that are not
    UTF-8 pass through. Findings are placed in the whole input (characters of its decoded text)."""
    known: KnownSecrets = NO_SECRETS
    offset = 0
    for raw in pieces(stream, size=size):
        text = raw.decode("utf-8", errors="surrogateescape")
        part = redact(text, high_entropy=high_entropy, known=known)
        known = known | KnownSecrets.of(part.removed)
        yield Redaction(
            text=part.text, findings=tuple(f.moved(offset) for f in part.findings), removed=part.removed
        )
        offset += len(text)

"""BERT's uncased WordPiece tokenisation in pure Python (for MiniLM and the static word vectors).

The rules are those of BERT's ``BasicTokenizer`` + ``WordpieceTokenizer`` (the tokenizer of
all-MiniLM-L6-v2): drop control characters, put spaces around CJK ideographs, lower-case,
strip accents, split on whitespace and punctuation, then cut each word greedily into the
longest vocabulary pieces (continuations prefixed ``##``); a word that cannot be cut, or is
longer than 100 characters, becomes ``[UNK]``. Pure and deterministic, and not cached: the
caller caches per word (``MiniLM`` and ``StaticVectors`` keep a bounded ``WordCache``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

__all__ = ["MAX_WORD_CHARS", "WordPiece", "basic_words"]

MAX_WORD_CHARS = 100


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


def _is_control(ch: str) -> bool:
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch).startswith("C")  # control, format, private use, unassigned


def _clean(text: str) -> str:
    out: list[str] = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        if _is_cjk(cp):
            out.extend((" ", ch, " "))
        elif ch.isspace():
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def _strip_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


def _split_punctuation(word: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    for ch in word:
        if _is_punctuation(ch):
            if current:
                parts.append("".join(current))
                current = []
            parts.append(ch)
        else:
            current.append(ch)
    if current:
        parts.append("".join(current))
    return parts


_ASCII_CONTROL = dict.fromkeys([*range(0, 9), 11, 12, *range(14, 32), 127])
_ASCII_TOKEN = re.compile(r"[a-z0-9]+|[!-/:-@\[-`{-~]")


def basic_words(text: str) -> list[str]:
    """BERT's basic (pre-WordPiece) tokens of ``text``: lower-cased, accents stripped,
    punctuation split off, CJK ideographs on their own."""
    if text.isascii():  # the common case, one regex pass (every printable ASCII symbol is punctuation)
        return _ASCII_TOKEN.findall(text.translate(_ASCII_CONTROL).lower())
    words: list[str] = []
    for raw in _clean(text).split():
        low = raw.lower()
        if not low.isascii():
            low = _strip_accents(low)
        if low.isalnum():
            words.append(low)
        else:
            words.extend(_split_punctuation(low))
    return words


class WordPiece:
    """Greedy longest-match-first WordPiece over ``vocab`` (token -> id)."""

    def __init__(self, vocab: Mapping[str, int], *, unknown: str = "[UNK]") -> None:
        self.vocab = vocab
        self.unknown_id = vocab[unknown]

    def word_ids(self, word: str) -> tuple[int, ...]:
        """The piece ids of one basic word (``(unknown_id,)`` when it cannot be cut)."""
        if len(word) > MAX_WORD_CHARS:
            return (self.unknown_id,)
        whole = self.vocab.get(word)
        if whole is not None:
            return (whole,)
        ids: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = self.vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return (self.unknown_id,)
            ids.append(found)
            start = end
        return tuple(ids)

    def ids(self, text: str) -> list[int]:
        """The piece ids of ``text`` (no ``[CLS]``/``[SEP]``)."""
        return [i for w in basic_words(text) for i in self.word_ids(w)]

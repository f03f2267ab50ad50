"""Text to terms: the pieces every selector shares.

Two families live here:

* Codex's shadow-selector rules (``codex_*``): lower-case Unicode alphanumeric words, the 35
  stop words, terms of at least 2 characters, byte caps on queries and fields. They are kept
  exact so the ``codex_*`` selectors reproduce Codex's rankings.
* skillshelf's own analysis (``terms``): the same words, identifiers split at case and digit
  boundaries (``PDFMerger`` -> ``pdf merger``), runs of Chinese, Japanese or Korean characters
  as their character pairs, a larger stop list (:mod:`skillshelf.select.stopwords`) and a light
  English stemmer, so ``converting`` meets ``convert`` and ``spreadsheets`` meets ``spreadsheet``.

Everything is pure and deterministic.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from typing import TypeVar

from skillshelf.select.stopwords import CHAT_FILLERS, CHAT_PHRASES, CODEX_STOP_WORDS, STOP_WORDS, VAGUE_WORDS

__all__ = [
    "CODEX_STOP_WORDS",
    "WORD_GRAMS",
    "WORD_TERMS",
    "WordCache",
    "STOP_WORDS",
    "char_grams",
    "codex_terms",
    "codex_words",
    "cap_bytes",
    "has_content",
    "is_cjk",
    "raw_words",
    "stem",
    "terms",
    "word_forms",
    "words",
]

_V = TypeVar("_V")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CASE_SPLIT = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_A-Za-z]+", re.UNICODE)
_VOWELS = frozenset("aeiouy")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
"""Kana, CJK ideographs (with extension A and the compatibility block) and Hangul syllables."""


def cap_bytes(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes on a character boundary."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", errors="ignore")


def codex_words(text: str) -> list[str]:
    """Codex's normalisation: lower-case alphanumeric words (Unicode-aware)."""
    return list(_alnum_runs(text.lower()))


def _alnum_runs(text: str) -> Iterator[str]:
    start = -1
    for i, ch in enumerate(text):
        if ch.isalnum():
            if start < 0:
                start = i
        elif start >= 0:
            yield text[start:i]
            start = -1
    if start >= 0:
        yield text[start:]


def codex_terms(text: str, *, limit: int | None = None, distinct: bool = False) -> list[str]:
    """Codex's searchable terms: words of >= 2 characters that are not stop words.

    ``limit`` keeps the first N (distinct ones when ``distinct``)."""
    out: list[str] = []
    seen: set[str] = set()
    for word in codex_words(text):
        if len(word) < 2 or word in CODEX_STOP_WORDS:
            continue
        if distinct:
            if word in seen:
                continue
            seen.add(word)
        out.append(word)
        if limit is not None and len(out) >= limit:
            break
    return out


def words(text: str) -> list[str]:
    """Lower-cased words; identifiers also give their case/digit parts (``PDFTool`` -> pdftool pdf tool)."""
    return [w for raw in _WORD.findall(text) for w in word_forms(raw)]


def raw_words(text: str) -> list[str]:
    """The raw (not lower-cased) alphanumeric runs of ``text``, in order (one C-level pass)."""
    return _WORD.findall(text)


@functools.lru_cache(maxsize=1 << 19)
def word_forms(raw: str) -> tuple[str, ...]:
    """:func:`words` of one raw run: the lower-cased run, then its case/digit parts if any.

    Chinese and Japanese are written without spaces between words, and a Korean word carries
    its particles, so a run of their characters is a phrase or a whole sentence; its parts are
    its overlapping character pairs (the bigrams of Lucene's CJK analyser), which is what lets
    ``帮我搜索新闻`` meet a skill that says ``搜索新闻``."""
    low = raw.lower()
    if not raw.isascii() and _CJK.search(raw):
        return _cjk_forms(raw)
    mixed_case = raw != low and not raw.isupper()
    letters_and_digits = not raw.isdigit() and any(c.isdigit() for c in raw)
    if mixed_case or letters_and_digits:
        parts = [p.lower() for p in _CASE_SPLIT.findall(raw)]
        if len(parts) > 1:
            return (low, *parts)
    return (low,)


def is_cjk(term: str) -> bool:
    """Whether ``term`` starts with a CJK character: a character pair of a CJK run, a lone
    character or the run itself."""
    return bool(term) and not term.isascii() and _CJK.match(term) is not None


def _cjk_forms(raw: str) -> tuple[str, ...]:
    """The lower-cased run, then per piece: a CJK run's character pairs (a lone character as
    itself), any other piece's own :func:`word_forms`."""
    parts: list[str] = []
    start = 0
    for match in _CJK.finditer(raw):
        if match.start() > start:
            parts.extend(word_forms(raw[start : match.start()]))
        run = match.group()
        parts.extend([run[i : i + 2] for i in range(len(run) - 1)] if len(run) > 1 else [run])
        start = match.end()
    if start < len(raw):
        parts.extend(word_forms(raw[start:]))
    low = raw.lower()
    return (low,) if parts == [low] else (low, *parts)


class WordCache(dict[str, _V]):
    """``word -> analyse(word)``, filled on first use; ``cache[word]`` is a plain dict lookup
    (no Python call on a hit), which is what makes bulk indexing fast. Cleared when it grows
    past ``limit`` entries, so memory stays bounded; results never depend on it."""

    def __init__(self, analyse: Callable[[str], _V], limit: int = 1 << 20) -> None:
        super().__init__()
        self._analyse = analyse
        self._limit = limit

    def __missing__(self, raw: str) -> _V:
        if len(self) >= self._limit:
            self.clear()
        value = self[raw] = self._analyse(raw)
        return value


def _terms_of(raw: str) -> tuple[str, ...]:
    return tuple(stem(w) for w in word_forms(raw) if len(w) >= 2 and w not in STOP_WORDS)


def _grams_of(raw: str) -> tuple[str, ...]:
    return tuple(g for w in word_forms(raw) if len(w) >= 2 and w not in STOP_WORDS for g in char_grams(w))


WORD_TERMS: Mapping[str, tuple[str, ...]] = WordCache(_terms_of, limit=1 << 19)
"""``WORD_TERMS[raw]``: :func:`terms` of one raw run (cached)."""

WORD_GRAMS: Mapping[str, tuple[str, ...]] = WordCache(_grams_of, limit=1 << 17)  # ~12 grams per entry
"""``WORD_GRAMS[raw]``: the character n-grams of every indexable word of one raw run, in order (cached)."""


def terms(text: str) -> list[str]:
    """skillshelf's analysed terms: words, stop words removed, stemmed."""
    return [t for raw in _WORD.findall(text) for t in WORD_TERMS[raw]]


def has_content(text: str) -> bool:
    """Whether ``text`` holds a content word: a word :func:`terms` keeps (not a stop word, at
    least 2 characters) that is no conversational filler (greetings, thanks, acknowledgements:
    :data:`~skillshelf.select.stopwords.CHAT_FILLERS`, and the set phrases of
    :data:`~skillshelf.select.stopwords.CHAT_PHRASES`) and no vague word
    (:data:`~skillshelf.select.stopwords.VAGUE_WORDS`). ``ok``, ``thanks!``, ``go on`` or ``fix
    it`` hold none, so they carry no task to suggest a skill for; stops at the first content word."""
    found = _WORD.findall(text)
    i = 0
    while i < len(found):
        low = found[i].lower()
        starts = low in _PHRASE_STARTS
        span = next((len(p) for p in CHAT_PHRASES if starts and _phrase_at(found, i, p)), 0)
        if span:
            i += span
            continue
        if low not in CHAT_FILLERS and low not in VAGUE_WORDS and WORD_TERMS[found[i]]:
            return True
        i += 1
    return False


_PHRASE_STARTS = frozenset(phrase[0] for phrase in CHAT_PHRASES)


def _phrase_at(found: list[str], i: int, phrase: tuple[str, ...]) -> bool:
    return len(found) - i >= len(phrase) and all(found[i + j].lower() == p for j, p in enumerate(phrase))


def _has_vowel(text: str) -> bool:
    return any(c in _VOWELS for c in text)


_SUFFIXES: tuple[tuple[str, str, int], ...] = (
    # (suffix, replacement, minimum stem length left)
    ("ational", "ate", 3),
    ("ization", "ize", 3),
    ("isation", "ize", 3),
    ("fulness", "ful", 3),
    ("iveness", "ive", 3),
    ("ations", "ate", 3),
    ("ation", "ate", 3),
    ("ments", "", 4),
    ("ment", "", 4),
    ("ities", "ity", 3),
    ("izer", "ize", 3),
    ("izes", "ize", 3),
    ("ized", "ize", 3),
    ("ises", "ize", 3),
    ("ised", "ize", 3),
    ("ising", "ize", 3),
    ("izing", "ize", 3),
    ("ingly", "", 3),
    ("edly", "", 3),
)


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """A light, deterministic English stemmer (plural, -ing, -ed, -ly and a few derivations).

    Only ASCII letters are touched; other words come back unchanged. Its derivations do not
    always meet their base word (*implement* -> ``imple``, *implementation* -> ``implementate``).
    The Snowball English (Porter2) and Porter stemmers of PyStemmer, put in its place for the
    same words, were tried on the tuning data (default ranking, base install): success@5 on
    the authored requests 0.850 -> 0.872 and on the MetaTool dev half 0.695 -> 0.701, on the
    skill-requests dev split 0.946 -> 0.926 (Porter 0.939); mean MRR@10 over the three 0.739 ->
    0.738 (Porter 0.735). No gain on every set, so this one stays."""
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    for suffix, repl, keep in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= keep:
            return word[: -len(suffix)] + repl
    w = word
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        w = w[:-1]
    for suffix in ("ing", "ed"):
        base = w[: -len(suffix)]
        if w.endswith(suffix) and len(base) >= 3 and _has_vowel(base):
            w = _undouble(base)
            break
    if w.endswith("ly") and len(w) > 5:
        w = w[:-2]
    if w.endswith("e") and len(w) > 4 and not w.endswith(("ee", "ie")):
        w = w[:-1]
    if w.endswith("y") and len(w) > 4 and w[-2] not in _VOWELS:
        w = w[:-1] + "i"
    return w


def _undouble(base: str) -> str:
    if len(base) >= 4 and base[-1] == base[-2] and base[-1] not in "lsz" and base[-1] not in _VOWELS:
        return base[:-1]
    return base


def char_grams(term: str, *, low: int = 3, high: int = 5, limit: int = 512) -> list[str]:
    """Distinct substrings of ``low``..``high`` characters, in first-seen order, at most ``limit``.

    Like Codex, a term that is non-ASCII or at most 2 characters long also gives 2-grams."""
    lo = 2 if (not term.isascii() or len(term) <= 2) else low
    out: list[str] = []
    seen: set[str] = set()
    for size in range(lo, high + 1):
        for i in range(len(term) - size + 1):
            gram = term[i : i + size]
            if gram not in seen:
                seen.add(gram)
                out.append(gram)
                if len(out) >= limit:
                    return out
    if not out and term:
        out.append(term)
    return out

"""What the index knows about one skill (or one tool), and how its text is analysed.

A :class:`SkillDoc` holds the display fields (name, descriptions, path) and a ``stamp`` that
changes when the skill changes; the analysed terms are computed once, at indexing time, and
kept only inside the postings.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from skillshelf.select.tokenize import STOP_WORDS, char_grams, terms, words
from skillshelf.skills.model import Skill

__all__ = [
    "CONTENT_FIELDS",
    "GRAM_FIELDS",
    "META_FIELDS",
    "MAX_BODY_CHARS",
    "Analysed",
    "SkillDoc",
    "analyse",
    "doc_for_skill",
    "doc_for_tool",
    "split_body",
]

META_FIELDS = ("name", "short", "description", "path")
CONTENT_FIELDS = ("headings", "body")
GRAM_FIELDS = ("name", "short", "description")
MAX_BODY_CHARS = 6000
MAX_BODY_TERMS = 400
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_PATH_NOISE = frozenset({"skill", "skills", "md", "src", "home", "users", "user", "plugins", "codex", "claude", "agents"})


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillDoc:
    """One indexed entry. ``key`` is the absolute ``SKILL.md`` path (or ``tool:ID``)."""

    key: str
    name: str
    description: str
    short_description: str = ""
    path_words: str = ""
    headings: str = ""
    body: str = ""
    stamp: str = ""
    skill: Skill | None = None
    tool_id: str | None = None

    @property
    def sort_key(self) -> tuple[str, str]:
        return (self.name, self.key)

    def lean(self) -> SkillDoc:
        """The same entry without its body text (kept in the index once analysed)."""
        return SkillDoc(
            key=self.key,
            name=self.name,
            description=self.description,
            short_description=self.short_description,
            path_words=self.path_words,
            stamp=self.stamp,
            skill=self.skill,
            tool_id=self.tool_id,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Analysed:
    """The analysed terms of one document: per-field frequencies and field lengths."""

    meta: dict[str, list[int]]
    meta_lengths: list[float]
    content: dict[str, list[int]]
    content_lengths: list[float]
    grams: dict[str, list[int]]
    gram_lengths: list[float]


def split_body(body: str) -> tuple[str, str]:
    """``(headings, text)`` of a markdown body: heading lines joined, and the prose (code
    fences kept, since commands and library names in them are good evidence), capped."""
    text = body[: MAX_BODY_CHARS * 2]
    headings = " \n".join(m.group(1) for m in _HEADING.finditer(text))
    return headings, text[:MAX_BODY_CHARS]


def _stamp(skill: Skill, body_stat: tuple[int, int] | None) -> str:
    digest = hashlib.sha1(
        "\0".join([skill.name, skill.description, skill.short_description or "", _display(skill)]).encode()
    ).hexdigest()[:16]
    mtime, size = body_stat or (0, 0)
    return f"{mtime}:{size}:{digest}"


def _display(skill: Skill) -> str:
    iface = skill.interface
    if iface is None:
        return ""
    return " ".join(x for x in (iface.display_name, iface.short_description) if x)


def stat_of(path: Path) -> tuple[int, int] | None:
    """``(mtime_ns, size)`` of a file, ``None`` if it cannot be read."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def path_words_of(skill: Skill) -> str:
    """Words of the skill's folder path below its root (plugin and folder names)."""
    try:
        rel = skill.folder.relative_to(skill.root)
        parts = rel.parts
    except ValueError:
        parts = skill.folder.parts[-2:]
    return " ".join(p for p in parts if p.lower() not in _PATH_NOISE)


def doc_for_skill(skill: Skill, *, body: str = "", stamp: str | None = None) -> SkillDoc:
    """A document for a parsed skill; ``body`` is the markdown after the frontmatter."""
    headings, text = split_body(body)
    short = skill.short_description or (skill.interface.short_description if skill.interface else None) or ""
    display = skill.interface.display_name if skill.interface and skill.interface.display_name else ""
    when = skill.claude.when_to_use or ""
    return SkillDoc(
        key=str(skill.path),
        name=skill.name,
        description=" ".join(x for x in (skill.description, when) if x),
        short_description=" ".join(x for x in (short, display) if x),
        path_words=path_words_of(skill),
        headings=headings,
        body=text,
        stamp=stamp if stamp is not None else _stamp(skill, stat_of(skill.path)),
        skill=skill,
    )


def doc_for_tool(tool_id: str, name: str, description: str) -> SkillDoc:
    """A document for a tool record (``--tools FILE.jsonl``): name and description only."""
    return SkillDoc(key=f"tool:{tool_id}", name=name, description=description, tool_id=tool_id)


def _count(texts: tuple[str, ...], analyser: str) -> tuple[dict[str, list[int]], list[float]]:
    nf = len(texts)
    table: dict[str, list[int]] = {}
    lengths: list[float] = []
    for f, text in enumerate(texts):
        if analyser in ("terms", "body"):
            toks = terms(text)
            if analyser == "body" and f == 1:  # body: the first MAX_BODY_TERMS distinct terms
                toks = _first_distinct(toks, MAX_BODY_TERMS)
        else:
            toks = [g for w in words(text) if len(w) >= 2 and w not in STOP_WORDS for g in char_grams(w)]
        lengths.append(float(len(toks)))
        for term, n in Counter(toks).items():
            row = table.get(term)
            if row is None:
                row = table[term] = [0] * nf
            row[f] += n
    return table, lengths


def _first_distinct(toks: list[str], limit: int) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for t in toks:
        if t not in seen:
            if len(seen) >= limit:
                continue
            seen.add(t)
        out.append(t)
    return out


def analyse(doc: SkillDoc) -> Analysed:
    """Per-field term frequencies for the metadata and content BM25F and the n-gram postings."""
    meta, meta_len = _count((doc.name, doc.short_description, doc.description, doc.path_words), "terms")
    content, content_len = _count((doc.headings, doc.body), "body")
    grams, gram_len = _count((doc.name, doc.short_description, doc.description), "grams")
    return Analysed(
        meta=meta, meta_lengths=meta_len, content=content, content_lengths=content_len, grams=grams, gram_lengths=gram_len
    )

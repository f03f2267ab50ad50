"""What the index knows about one skill (or one tool), and how its text is analysed.

A :class:`SkillDoc` holds the display fields (name, descriptions, path) and a ``stamp`` that
changes when the skill changes; the analysed terms are computed once, at indexing time, and
kept only inside the postings.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from skillshelf.select.tokenize import WORD_GRAMS, WORD_TERMS, raw_words
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
    "with_body",
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
    """The analysed terms of one document: per field ``term -> frequency``, and field lengths."""

    meta: tuple[dict[str, int], ...]
    meta_lengths: list[float]
    content: tuple[dict[str, int], ...]
    content_lengths: list[float]
    grams: tuple[dict[str, int], ...]
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


def with_body(doc: SkillDoc, body: str) -> SkillDoc:
    """``doc`` (made with an empty body) with ``body`` added: the same as building it with the body."""
    headings, text = split_body(body)
    return dataclasses.replace(doc, headings=headings, body=text)


def doc_for_tool(tool_id: str, name: str, description: str) -> SkillDoc:
    """A document for a tool record (``--tools FILE.jsonl``): name and description only."""
    return SkillDoc(key=f"tool:{tool_id}", name=name, description=description, tool_id=tool_id)


def _count(texts: tuple[str, ...], analyser: str) -> tuple[tuple[dict[str, int], ...], list[float]]:
    """Per field: ``term -> frequency`` (first-occurrence order) and the field length in tokens.

    Each raw word is analysed through a cache shared by all documents and the terms are
    counted at C speed (``Counter`` over a chained ``map``); counts keep first-occurrence
    order, which is what picks the body's first ``MAX_BODY_TERMS`` distinct terms."""
    fields: list[dict[str, int]] = []
    lengths: list[float] = []
    analyse_word = (WORD_GRAMS if analyser == "grams" else WORD_TERMS).__getitem__
    for f, text in enumerate(texts):
        counts: dict[str, int] = Counter(itertools.chain.from_iterable(map(analyse_word, raw_words(text))))
        if analyser == "body" and f == 1 and len(counts) > MAX_BODY_TERMS:
            counts = dict(itertools.islice(counts.items(), MAX_BODY_TERMS))
        lengths.append(float(sum(counts.values())))
        fields.append(counts)
    return tuple(fields), lengths


def analyse(doc: SkillDoc) -> Analysed:
    """Per-field term frequencies for the metadata and content BM25F and the n-gram postings."""
    meta, meta_len = _count((doc.name, doc.short_description, doc.description, doc.path_words), "terms")
    content, content_len = _count((doc.headings, doc.body), "body")
    grams, gram_len = _count((doc.name, doc.short_description, doc.description), "grams")
    return Analysed(
        meta=meta, meta_lengths=meta_len, content=content, content_lengths=content_len, grams=grams, gram_lengths=gram_len
    )

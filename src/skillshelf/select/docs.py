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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from skillshelf.fileio import stat_of
from skillshelf.select.tokenize import WORD_GRAMS, WORD_TERMS, is_cjk, raw_words
from skillshelf.skills.bundled_text import BundledProse, bundled_stamp
from skillshelf.skills.model import Skill

__all__ = [
    "MAX_BODY_CHARS",
    "Analysed",
    "SkillDoc",
    "analyse",
    "carry_bundled",
    "copy_key",
    "doc_for_skill",
    "doc_for_tool",
    "restamp",
    "split_body",
    "stamp_of",
    "with_body",
    "with_bundled",
]

MAX_BODY_CHARS = 6000
MAX_BODY_TERMS = 400
"""The body the index reads: its first 6,000 characters and, of those, the first 400 distinct
terms (the size and speed of the postings at 10,000 skills). About 40 % of the corpus skills'
``SKILL.md`` files are longer. Larger caps were checked on tuning data only (the skill-requests
dev split and ``bench/data/authored-requests.jsonl``, default fusion, base install):
12,000 / 800, 24,000 / 1,600 and the whole body moved success@5 by -0.014 to -0.020 on the dev
split and by 0.000 to -0.006 on the authored requests, and MRR@10 by -0.004 to -0.009 and
+0.007 to +0.014; no gain on both, so the caps stay."""
CJK_TERM_SHARE = 0.25
"""What a CJK term (a character pair, see :func:`~skillshelf.select.tokenize.word_forms`) counts
against :data:`MAX_BODY_TERMS`. Each character of a Chinese or Japanese text starts a new pair, so
as whole terms 400 cover a median of about 1,500 characters of the 7 corpus skills whose bodies
reach the cap (13 of the 945 have more than 200 CJK characters), while no English body of the
corpus reaches it within 6,000 characters. At a quarter each, none of the 13 reaches it either:
a CJK body is read as far as an English one."""
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_PATH_NOISE = frozenset(
    {"skill", "skills", "md", "src", "home", "users", "user", "plugins", "codex", "claude", "agents"}
)


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
        return dataclasses.replace(self, headings="", body="")


def copy_key(name: str, description: str) -> tuple[str, str]:
    """What the model is shown of a skill apart from its path. Two skills alike in it are copies
    of one skill installed in two folders (``.codex/skills`` and ``.claude/skills``, say): the
    model cannot tell them apart, so one of them is enough in the suggestions."""
    return name, " ".join(description.split())


@dataclass(frozen=True, slots=True, kw_only=True)
class Analysed:
    """The analysed terms of one document: per field ``term -> frequency``, and field lengths."""

    meta: tuple[dict[str, int], ...]
    meta_lengths: list[float]
    content: tuple[dict[str, int], ...]
    content_lengths: list[float]
    grams: tuple[dict[str, int], ...]
    gram_lengths: list[float]

    def part(self, name: str) -> tuple[tuple[dict[str, int], ...], list[float]]:
        """``(per-field term counts, field lengths)`` of ``meta``, ``content`` or ``grams``."""
        if name == "meta":
            return self.meta, self.meta_lengths
        if name == "content":
            return self.content, self.content_lengths
        return self.grams, self.gram_lengths


def split_body(body: str) -> tuple[str, str]:
    """``(headings, text)`` of a markdown body: heading lines joined, and the prose (code
    fences kept, since commands and library names in them are good evidence), capped.

    Tried and not kept: reading the first 300 characters under a "When to use" heading again
    beside the headings (where authors list the situations a skill is for). Chosen on tuning
    data (the skill-requests dev split and ``bench/data/authored-requests.jsonl``; 150 to 800
    characters, as headings or as description), where the base install's success@5 on the
    authored requests rose from 0.850 to 0.867. On the held-out test split success@5 rose from
    0.871 to 0.884 (+ MiniLM 0.912 to 0.918) and SkillsBench stayed at 0.851, but MRR@10 fell
    from 0.785 to 0.782 and success@1 from 0.707 to 0.701. The rule fixed before that run (test
    success@5 and MRR@10, SkillsBench and + MiniLM success@5 no lower) was not met."""
    if not body:
        return "", ""
    text = body[: MAX_BODY_CHARS * 2]
    headings = " \n".join(m.group(1) for m in _HEADING.finditer(text))
    return headings, text[:MAX_BODY_CHARS]


def stamp_of(skill: Skill) -> str:
    """Changes when what the index derives from ``skill``'s ``SKILL.md`` may have: its mtime and
    size, and a digest of the parsed name and descriptions and of the root (path words). A
    document whose body was filled with bundled markdown adds that part (:func:`with_bundled`)."""
    return _stamp(skill, stat_of(skill.path))


def with_bundled(stamp: str, bundled: BundledProse | None) -> str:
    """``stamp``'s ``SKILL.md`` part (:func:`stamp_of`) for a document whose body holds
    ``bundled``: the bundled part's stamp and what it watches (files read, folders), one per
    line, after it."""
    head = stamp.partition("\n")[0]
    return head if bundled is None else "\n".join((head, bundled.stamp, *bundled.watched))


def restamp(stamp: str, skill: Skill) -> str:
    """The stamp again for ``skill`` whose fields made ``stamp`` (the digest is kept, only the
    files are looked at again)."""
    head = stamp.partition("\n")[0]
    mtime, size = stat_of(skill.path) or (0, 0)
    return carry_bundled(f"{mtime}:{size}:{head.rpartition(':')[2]}", stamp, skill.folder)


def carry_bundled(current: str, known: str, folder: Path) -> str:
    """``current``, a stamp of a ``SKILL.md`` alone, with the bundled part of ``known`` (a stamp
    of the same skill from an earlier build) taken again from ``folder``'s files, when both stamp
    the same ``SKILL.md``: if those files are unchanged, the result is ``known``."""
    head, sep, rest = known.partition("\n")
    if not sep or head != current:
        return current
    watched = rest.split("\n")[1:]
    return "\n".join((current, bundled_stamp(folder, watched), *watched))


def _stamp(skill: Skill, body_stat: tuple[int, int] | None) -> str:
    digest = hashlib.sha1(
        "\0".join(
            [skill.name, skill.description, skill.short_description or "", _display(skill), str(skill.root)]
        ).encode("utf-8", "surrogatepass")
    ).hexdigest()[:16]
    mtime, size = body_stat or (0, 0)
    return f"{mtime}:{size}:{digest}"


def _display(skill: Skill) -> str:
    iface = skill.interface
    if iface is None:
        return ""
    return " ".join(x for x in (iface.display_name, iface.short_description) if x)


def _plain_absolute(path: str) -> bool:
    return path.startswith("/") and not path.startswith("//")


def path_words_of(skill: Skill) -> str:
    """Words of the skill's folder path below its root (plugin and folder names).

    Computed on the path strings when both are absolute POSIX paths (``str`` of a pathlib path
    is normalised, so this gives the parts ``Path.relative_to`` would); otherwise by pathlib."""
    key, root = str(skill.path), str(skill.root)
    cut = key.rfind("/")
    if cut > 0 and _plain_absolute(key) and _plain_absolute(root) and isinstance(skill.path, PurePosixPath):
        folder = key[:cut]
        prefix = root if root.endswith("/") else root + "/"
        if folder == root:
            return ""
        if folder.startswith(prefix):
            return " ".join([p for p in folder[len(prefix) :].split("/") if p.lower() not in _PATH_NOISE])
    try:
        rel = skill.folder.relative_to(skill.root)
        parts = rel.parts
    except ValueError:
        parts = skill.folder.parts[-2:]
    return " ".join(p for p in parts if p.lower() not in _PATH_NOISE)


def doc_for_skill(
    skill: Skill, *, body: str = "", stamp: str | None = None, path_words: str | None = None
) -> SkillDoc:
    """A document for a parsed skill; ``body`` is the markdown after the frontmatter.

    ``stamp`` and ``path_words`` may be passed when already known (:func:`stamp_of`, and
    :func:`path_words_of` of a skill whose stamp is unchanged: the stamp covers the root)."""
    headings, text = split_body(body) if body else ("", "")
    iface = skill.interface
    short = skill.short_description or (iface.short_description if iface else None) or ""
    display = iface.display_name if iface and iface.display_name else ""
    when = skill.claude.when_to_use
    return SkillDoc(
        key=str(skill.path),
        name=skill.name,
        description=f"{skill.description} {when}"
        if when and skill.description
        else skill.description or when or "",
        short_description=f"{short} {display}" if short and display else short or display,
        path_words=path_words if path_words is not None else path_words_of(skill),
        headings=headings,
        body=text,
        stamp=stamp if stamp is not None else stamp_of(skill),
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
    """Per field: ``term -> frequency`` (first-occurrence order) and the field length in tokens."""
    return _count_words([raw_words(text) for text in texts], analyser)


def _count_words(
    fields_words: Sequence[list[str]], analyser: str
) -> tuple[tuple[dict[str, int], ...], list[float]]:
    """:func:`_count` of fields already split into raw words.

    Each raw word is analysed through a cache shared by all documents and the terms are
    counted at C speed (``Counter`` over a chained ``map``); counts keep first-occurrence
    order, which is what picks the body's first ``MAX_BODY_TERMS`` distinct terms."""
    fields: list[dict[str, int]] = []
    lengths: list[float] = []
    analyse_word = (WORD_GRAMS if analyser == "grams" else WORD_TERMS).__getitem__
    for f, raw in enumerate(fields_words):
        counts: dict[str, int] = Counter(itertools.chain.from_iterable(map(analyse_word, raw)))
        if analyser == "body" and f == 1 and len(counts) > MAX_BODY_TERMS:
            counts = _first_terms(counts)
        lengths.append(float(sum(counts.values())))
        fields.append(counts)
    return tuple(fields), lengths


def _first_terms(counts: dict[str, int]) -> dict[str, int]:
    """The body's first distinct terms (first-occurrence order) up to :data:`MAX_BODY_TERMS`,
    a CJK term counting :data:`CJK_TERM_SHARE` of one."""
    kept: dict[str, int] = {}
    used = 0.0
    for term, n in counts.items():
        used += CJK_TERM_SHARE if is_cjk(term) else 1.0
        if used > MAX_BODY_TERMS:
            break
        kept[term] = n
    return kept


def analyse(doc: SkillDoc) -> Analysed:
    """Per-field term frequencies for the metadata and content BM25F and the n-gram postings."""
    head = [
        raw_words(doc.name),
        raw_words(doc.short_description),
        raw_words(doc.description),
    ]  # split once, for both
    meta, meta_len = _count_words([*head, raw_words(doc.path_words)], "terms")
    content, content_len = _count((doc.headings, doc.body), "body")
    grams, gram_len = _count_words(head, "grams")
    return Analysed(
        meta=meta,
        meta_lengths=meta_len,
        content=content,
        content_lengths=content_len,
        grams=grams,
        gram_lengths=gram_len,
    )

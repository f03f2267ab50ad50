"""What the search index reads as a skill's body (:func:`index_body`), and the reader a build
calls for it: a :data:`BodyReader` returns the text, or an :class:`IndexBody` that also names the
bundled markdown read (the index then reads the skill again when one of those files changes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from skillshelf.select.docs import MAX_BODY_CHARS
from skillshelf.skills.bundled_text import BundledProse
from skillshelf.skills.model import Skill

__all__ = ["BodyReader", "IndexBody", "index_body", "read_index_body", "safe_read"]


@dataclass(frozen=True, slots=True)
class IndexBody:
    """A body as the index reads it, and the bundled markdown it holds (``None``: the body is
    the ``SKILL.md`` body alone, up to the cap)."""

    text: str
    bundled: BundledProse | None = None


BodyReader = Callable[[Skill], str | IndexBody]


def index_body(skill: Skill) -> str:
    """What the index reads as a skill's body: the ``SKILL.md`` body and, when that is shorter
    than :data:`MAX_BODY_CHARS`, the markdown its folder bundles in the rest of the room
    (:func:`~skillshelf.skills.bundled_text.bundled_prose`).

    Chosen on tuning data (the skill-requests dev split and ``bench/data/authored-requests.jsonl``,
    default fusion, base install / + MiniLM): MRR@10 0.866 / 0.870 -> 0.872 / 0.877 on the dev
    split and 0.788 / 0.793 -> 0.793 / 0.802 on the authored requests; the requests that
    describe a situation gained most (base install success@5 0.854 -> 0.878 and 0.764 -> 0.800).
    Also tried there: the bundled files' names as headings (no change) and their headings as
    headings, alone or beside the prose (dev MRR@10 + MiniLM 0.870 -> 0.865 and 0.870). The
    confidence models were fitted again for it (``bench/fit_selection.py``). The rule fixed
    before the held-out run (test split success@5 and MRR@10 of the base install, success@5 +
    MiniLM and SkillsBench success@5 no lower) was met: test split base install success@5 0.878
    -> 0.898, MRR@10 0.798 -> 0.815, + MiniLM success@5 0.912 -> 0.912; SkillsBench 0.851 and
    0.920 unchanged. A cold build of the 798 corpus skills took 0.98 -> 1.03 s."""
    return read_index_body(skill).text


def read_index_body(skill: Skill) -> IndexBody:
    """:func:`index_body`, with the bundled markdown read for it (its files and their stamp)."""
    from skillshelf.skills.bundled_text import bundled_prose
    from skillshelf.skills.discover import read_skill_body

    body = read_skill_body(skill)
    room = MAX_BODY_CHARS - len(body) - 2
    if room <= 0:
        return IndexBody(body)
    bundled = bundled_prose(skill.folder, limit=room)
    return IndexBody(f"{body}\n\n{bundled.text}" if bundled.text else body, bundled)


def safe_read(reader: BodyReader, skill: Skill) -> IndexBody:
    """What ``reader`` reads for ``skill`` as an :class:`IndexBody`; empty if it fails."""
    try:
        body = reader(skill)
    except Exception:  # an unreadable body indexes as empty; discovery reports the file itself
        return IndexBody("")
    return body if isinstance(body, IndexBody) else IndexBody(body)

"""Stamps and stubs of a build of the search index: what says whether a skill's document can be
reused, and the body-less documents a build starts from.

A stamp (:func:`skillshelf.select.docs.stamp_of`) covers a skill's ``SKILL.md`` identity and
parsed fields, plus the bundled files its body read and the folders of bundled files it watches.
:func:`skill_stamps` takes every skill's stamp against the index a process kept,
:func:`carried_stamps` carries the bundled parts over from the disk cache, and :func:`stubs`
makes the documents, with the path words of unchanged skills from the cache.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from skillshelf.select.docs import SkillDoc, carry_bundled, doc_for_skill, restamp, stamp_of
from skillshelf.select.indexcache import CachedIndex, Reuse
from skillshelf.skills.model import Skill

__all__ = ["carried_stamps", "skill_stamps", "stubs"]


def skill_stamps(
    skills: list[Skill], known: tuple[Mapping[str, int], Sequence[SkillDoc]] | None
) -> list[str]:
    """Every skill's stamp: :func:`stamp_of`, with the bundled part of its document in the
    ``known`` index (its ``by_key`` and ``docs``) looked at again (:func:`carry_bundled`); a
    skill that is the very object that document was made from keeps its digest (only the files
    are looked at again)."""
    if known is None:
        return [stamp_of(s) for s in skills]
    by_key, docs = known
    out = []
    for skill in skills:
        i = by_key.get(str(skill.path))
        if i is None:
            out.append(stamp_of(skill))
        elif docs[i].skill is skill:
            out.append(restamp(docs[i].stamp, skill))
        else:
            out.append(carry_bundled(stamp_of(skill), docs[i].stamp, skill.folder))
    return out


def carried_stamps(stamps: list[str], skills: list[Skill], previous: CachedIndex) -> list[str]:
    """``stamps`` with the bundled parts of the cached stamps carried over
    (:func:`carry_bundled`) where a stamp has none yet."""
    if stamps == previous.stamps:
        return stamps
    cached = dict(zip(previous.keys, previous.stamps, strict=True))
    out = []
    for stamp, skill in zip(stamps, skills, strict=True):
        known = cached.get(str(skill.path)) if "\n" not in stamp else None
        out.append(carry_bundled(stamp, known, skill.folder) if known is not None else stamp)
    return out


def stubs(
    skills: list[Skill], stamps: list[str], previous: CachedIndex | None, reuse: Reuse | None
) -> list[SkillDoc]:
    """Body-less documents; path words come from the cache for skills whose stamp is unchanged."""
    known: list[str | None] = [None] * len(skills)
    if previous is not None and reuse is not None:
        if reuse.unchanged:
            known = list(previous.path_words)
        else:
            known = [previous.path_words[j] if j >= 0 else None for j in reuse.old_rows]
    return [
        doc_for_skill(s, stamp=st, path_words=pw) for s, st, pw in zip(skills, stamps, known, strict=True)
    ]

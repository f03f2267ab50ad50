"""``bench/selection.py``'s small-library rows: the skill-requests test split ranked in libraries of
a few skills plus the built-in skills (run by ``bench/selection.py --sets requests``)."""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from typing import Any

from selection import CACHE, Query, body_of, load_corpus, semantic_variants

from skillshelf.select.index import SkillIndex
from skillshelf.select.ranking import Ranker, RankingSettings

SMALL_SIZES = (3, 10, 30, 100)


def small_libraries(queries: Sequence[Query], args: argparse.Namespace) -> dict[str, Any]:
    """The skill-requests **test** split in small libraries: each request ranked against its
    right skill (the first listed; for ``multi`` the last one too), random other corpus skills
    (seed 0) up to :data:`SMALL_SIZES` skills, and the built-in skills, as every install has
    them. A built-in skill counts as right where a right skill has its name. Per size: success@1
    and @3, the share of ``none`` requests with no suggestion, the share of requests with a
    right skill in the top five whose suggestions lose it, and over the requests whose right
    skill is no built-in one, how often a built-in skill ranks first and is suggested."""
    from skillshelf.skills.builtin import packaged_skills_dir
    from skillshelf.skills.discover import discover_in

    corpus = load_corpus()
    builtins = list(discover_in([packaged_skills_dir()]).skills)
    by_path = {str(s.path): s for s in corpus}
    full = SkillIndex.build(corpus + builtins, cache_dir=CACHE / "small", body_reader=body_of)
    variants = [
        (label, make(full)) for label, make in semantic_variants("base" if args.no_semantic else "all")
    ]
    print(
        f"\n== skill-requests test split in small libraries (+ {len(builtins)} built-in skills)", flush=True
    )
    out: dict[str, Any] = {}
    rng = random.Random(0)
    for size in SMALL_SIZES:
        counts: dict[str, dict[str, int]] = {label: {} for label, _ in variants}
        for q in queries:
            rel = list(q["relevant"])
            first = rel[:1] + ([rel[-1]] if q["kind"] == "multi" and rel[-1] != rel[0] else [])
            right = [by_path[p] for p in first if p in by_path]
            others = [s for s in corpus if str(s.path) not in set(rel)]
            index = SkillIndex.build(
                right + rng.sample(others, max(0, size - len(right))) + builtins, body_reader=body_of
            )
            names = {by_path[p].name for p in rel if p in by_path}
            right_keys = set(rel) | {str(s.path) for s in builtins if s.name in names}
            for label, sem in variants:
                ranker = Ranker(index, semantic=_sliced(sem, full, index), settings=RankingSettings())
                _count(counts[label], ranker, str(q["query"]), right_keys, {str(s.path) for s in builtins})
        for label, c in counts.items():
            row = _small_row(c)
            out[f"{size}/{label}"] = row
            print(
                f"  {size:3d} + built-ins {label:20s} s@1 {row['s@1']:.3f}  s@3 {row['s@3']:.3f}  none "
                f"without suggestion {row['none_without_suggestion']:.3f} of {c['none']}  right skill "
                f"held back {row['right_skill_held_back']:.3f}  built-in first "
                f"{row['builtin_first']:.3f} suggested {row['builtin_suggested']:.3f}",
                flush=True,
            )
    return out


def _sliced(sem: Any, full: SkillIndex, index: SkillIndex) -> Any:
    """``sem`` (vectors of every document of ``full``) cut down to the documents of ``index``."""
    from skillshelf.select.semantic import SemanticIndex

    if sem is None:
        return None
    rows = [full.by_key[d.key] for d in index.docs]
    return SemanticIndex(
        index.docs,
        encoder=sem.encoder,
        vectors=None if sem.vectors is None else sem.vectors[rows],
        words=sem.words,
        word_vectors=None if sem.word_vectors is None else sem.word_vectors[rows],
    )


def _count(c: dict[str, int], ranker: Ranker, query: str, right: set[str], builtins: set[str]) -> None:
    from skillshelf.select.suggest import suggested

    keys = [r.doc.key for r in ranker.rank(query, top_k=5).ranked]
    shown = {r.doc.key for r in suggested(ranker, query)}

    def add(name: str, value: bool = True) -> None:
        c[name] = c.get(name, 0) + int(value)

    if not right & builtins:
        add("others")
        add("builtin_first", bool(keys) and keys[0] in builtins)
        add("builtin_suggested", bool(shown & builtins))
    if not right:
        add("none")
        add("quiet", not shown)
        return
    add("n")
    add("s1", bool(keys) and keys[0] in right)
    add("s3", bool(set(keys[:3]) & right))
    if set(keys) & right:
        add("found")
        add("lost", not shown & right)


def _small_row(c: dict[str, int]) -> dict[str, float]:
    def share(a: str, b: str) -> float:
        return c.get(a, 0) / c[b] if c.get(b) else float("nan")

    return {
        "s@1": share("s1", "n"),
        "s@3": share("s3", "n"),
        "none_without_suggestion": share("quiet", "none"),
        "right_skill_held_back": share("lost", "found"),
        "builtin_first": share("builtin_first", "others"),
        "builtin_suggested": share("builtin_suggested", "others"),
    }

"""Small libraries: skill requests ranked among a few corpus skills plus the built-in skills.

``bench/selection.py --sets requests`` reports the test split this way (:func:`small_libraries`);
``bench/fit_selection.py`` fits the few-skills confidence model on the dev split's draws
(:meth:`Libraries.draws`)."""

from __future__ import annotations

import argparse
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from selection import semantic_variants, shows_right
from selection_sets import CACHE, Query, index_body_of, load_corpus

from skillshelf.select.index import SkillIndex
from skillshelf.select.ranking import Ranker, RankingSettings
from skillshelf.skills.model import Skill

SMALL_SIZES = (3, 10, 30, 100)


@dataclass(frozen=True, slots=True, kw_only=True)
class Draw:
    """One request ranked in one small library: the library's index, the keys that count as
    right (the built-in skill of the same name too) and the built-in skills' keys."""

    size: int
    query: Query
    index: SkillIndex
    right: frozenset[str]
    builtins: frozenset[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class Libraries:
    """The corpus with the built-in skills, indexed once (the models' vectors are cut from it)."""

    corpus: list[Skill]
    builtins: list[Skill]
    full: SkillIndex

    @classmethod
    def load(cls) -> Libraries:
        from skillshelf.skills.builtin import packaged_skills_dir
        from skillshelf.skills.discover import discover_in

        corpus = load_corpus()
        builtins = list(discover_in([packaged_skills_dir()]).skills)
        full = SkillIndex.build(corpus + builtins, cache_dir=CACHE / "small", body_reader=index_body_of)
        return cls(corpus=corpus, builtins=builtins, full=full)

    def draws(self, queries: Sequence[Query], sizes: Sequence[int], rng: random.Random) -> Iterator[Draw]:
        """Each request of ``queries`` at each size: its right skill (the first listed; for
        ``multi`` the last one too), random other corpus skills from ``rng`` up to ``size``
        skills, and the built-in skills, as every install has them."""
        by_path = {str(s.path): s for s in self.corpus}
        builtin_keys = frozenset(str(s.path) for s in self.builtins)
        for size in sizes:
            for q in queries:
                rel = list(q["relevant"])
                first = rel[:1] + ([rel[-1]] if q["kind"] == "multi" and rel[-1] != rel[0] else [])
                right = [by_path[p] for p in first if p in by_path]
                taken = set(rel)
                others = [s for s in self.corpus if str(s.path) not in taken]
                index = SkillIndex.build(
                    right + rng.sample(others, max(0, size - len(right))) + self.builtins,
                    body_reader=index_body_of,
                )
                names = {by_path[p].name for p in rel if p in by_path}
                right_keys = set(rel) | {str(s.path) for s in self.builtins if s.name in names}
                yield Draw(
                    size=size, query=q, index=index, right=frozenset(right_keys), builtins=builtin_keys
                )

    def semantic(self, sem: Any, index: SkillIndex) -> Any:
        """``sem`` (vectors of every document of :attr:`full`) cut down to ``index``."""
        return _sliced(sem, self.full, index)


def small_libraries(
    queries: Sequence[Query], args: argparse.Namespace, name: str = "test split"
) -> dict[str, Any]:
    """The skill-requests **test** split (or the file of ``--requests``, ``name``) in small
    libraries (:meth:`Libraries.draws`, seed 0, at :data:`SMALL_SIZES` skills). A built-in skill
    counts as right where a right skill has its name. Per size: success@1 and @3, the share of
    ``none`` requests with no suggestion, the share of requests with a right skill in the top
    five whose suggestions lose it, and over the requests whose right skill is no built-in one,
    how often a built-in skill ranks first and is suggested."""
    libraries = Libraries.load()
    variants = [
        (label, make(libraries.full))
        for label, make in semantic_variants("base" if args.no_semantic else "all")
    ]
    print(
        f"\n== skill-requests {name} in small libraries (+ {len(libraries.builtins)} built-in skills)",
        flush=True,
    )
    out: dict[str, Any] = {}
    counts: dict[int, dict[str, dict[str, int]]] = {
        size: {label: {} for label, _ in variants} for size in SMALL_SIZES
    }
    for draw in libraries.draws(queries, SMALL_SIZES, random.Random(0)):
        for label, sem in variants:
            ranker = Ranker(
                draw.index, semantic=libraries.semantic(sem, draw.index), settings=RankingSettings()
            )
            _count(
                counts[draw.size][label],
                ranker,
                str(draw.query["query"]),
                set(draw.right),
                set(draw.builtins),
            )
    for size in SMALL_SIZES:
        for label, c in counts[size].items():
            row = _small_row(c)
            out[f"{size}/{label}"] = row
            print(
                f"  {size:3d} + built-ins {label:20s} s@1 {row['s@1']:.3f}  s@3 {row['s@3']:.3f}  none "
                f"without suggestion {row['none_without_suggestion']:.3f} of {c.get('none', 0)}  right skill "
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
    offered = suggested(ranker, query)
    shown = {r.doc.key for r in offered}

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
        add("lost", not shows_right(ranker.index, offered, right))


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

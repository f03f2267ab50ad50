"""Skill selection benchmark: every set on data the ranking was not tuned on, beside baselines.

    .venv/bin/python bench/selection.py                       # every set, then latency
    .venv/bin/python bench/selection.py --sets requests       # one set (requests, metatool, skillsbench)
    .venv/bin/python bench/selection.py --sets latency        # 10,000 skills: build and query times
    .venv/bin/python bench/selection.py --show-dev            # also the dev and authored rows (tuned on)
    .venv/bin/python bench/selection.py --sets requests --requests FILE   # another held-out file

Sets (read at run time from ../shared, never copied):

* ``requests``: ``benchmarks/skill-requests`` (hand-written coding-agent requests over every
  corpus skill that loads, 798 skills, 754 of them labelled usable). The default ranking's
  weights were chosen on its **dev** split, its confidence models on that split and the
  requests in ``bench/data/authored-requests.jsonl`` (``bench/fit_selection.py``);
  the rows printed are its **test** split, per ``kind`` and overall, and the share of ``none``
  requests that get no suggestion beside the share of the others whose right skill the
  threshold holds back. Then the test split again in small libraries (``selection_small.small_libraries``:
  each request against its right skill, random corpus skills and the built-in skills; 3 to
  100 skills; ``--no-small`` leaves them out). ``--requests FILE`` reports another file in the
  same format instead of the test split (``relevant``: folders under ``corpora/``; every request
  not marked ``"split": "dev"`` counts, and a request without ``kind`` counts in ``all`` only).
* ``metatool``: ``benchmarks/metatool`` (199 tools, name + description). Queries are split in
  halves by the SHA-1 of their id (odd: held out); 300 dev-half queries went into the fitting,
  the rows are a fixed sample (seed 0) of the held-out half, 3,000 by default.
* ``skillsbench``: ``benchmarks/skillsbench-routing`` (87 long tasks, 198 skills with
  frontmatter only) with every corpus skill as a distractor (minus copies by name). Too small
  to split: reported whole, never tuned on.

Metrics: success@k (at least one right skill in the top k) for k = 1, 3, 5, 10, and MRR@10.
Same-run baselines: ``bm25s`` over name + description + body (its default tokenisation),
MiniLM (all-MiniLM-L6-v2) over ``"name: description"`` and over name + description + body
(the model reads its first 256 tokens). ``bm25f`` is the default's own lexical component.
``default base`` is the base install (WordLlama, a dependency); the ``+ minilm`` rows and the
MiniLM baselines need ``skillshelf[semantic]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))

from selection_sets import (  # noqa: E402
    CACHE,
    SHARED,
    Query,
    authored_requests,
    body_of,
    held_out_requests,
    index_body_of,
    jsonl,
    load_corpus,
    metatool_split,
    requests_set,
    skillsbench_set,
)

from skillshelf.select import RankedDoc, rank_docs  # noqa: E402
from skillshelf.select.index import SkillIndex  # noqa: E402
from skillshelf.select.ranking import Ranker, RankingSettings  # noqa: E402
from skillshelf.skills.model import Skill  # noqa: E402

Ranker_ = Callable[[str, int], list[str]]
KS = (1, 3, 5, 10)
if __name__ == "__main__":  # selection_small imports this module: one copy of it, not two
    sys.modules.setdefault("selection", sys.modules[__name__])


# ---- rankers -------------------------------------------------------------------------------


def semantic_variants(which: str = "all") -> Iterator[tuple[str, Callable[[SkillIndex], Any]]]:
    """``(label, index -> SemanticIndex | None)``: the base install (WordLlama, a dependency)
    and, when the ``semantic`` extra is installed, MiniLM on top. ``which="lexical"`` adds the
    ranking without any model (what runs when the wordllama package's files are missing)."""
    from skillshelf.select import wordllama
    from skillshelf.select.ranking import _minilm, _wordllama
    from skillshelf.select.semantic import SemanticIndex, available

    if which == "lexical" or not wordllama.available():
        yield "without models", lambda index: None
    if wordllama.available():
        yield "base", lambda ix: SemanticIndex.build(ix, cache_dir=CACHE, encoder=False, words=_wordllama())
    if which in ("base", "lexical"):
        return
    if available() and wordllama.available():
        yield (
            "+ minilm (semantic)",
            lambda ix: SemanticIndex.build(ix, cache_dir=CACHE, words=_wordllama(), encoder=_minilm()),
        )


def ours(index: SkillIndex, selector: str = "default", semantic: Any = None) -> Ranker_:
    def run(query: str, k: int) -> list[str]:
        return [r.doc.key for r in rank_docs(index, query, top_k=k, selector=selector, semantic=semantic)]

    return run


def bm25s_ranker(index: SkillIndex) -> Ranker_:
    """bm25s over name + description + body, default tokenisation."""
    import bm25s

    keys = [d.key for d in index.docs]
    texts = [f"{d.name} {d.description} {body_of(d.skill) if d.skill else ''}" for d in index.docs]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, show_progress=False), show_progress=False)

    def run(query: str, k: int) -> list[str]:
        tokens = bm25s.tokenize([query], show_progress=False)
        if not tokens.vocab:
            return []
        docs, scores = retriever.retrieve(tokens, k=min(k, len(keys)), show_progress=False)
        return [keys[int(d)] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]

    return run


def minilm_ranker(index: SkillIndex, *, body: bool) -> Ranker_:
    import numpy as np

    from skillshelf.select.ranking import _minilm

    encoder = _minilm()
    keys = [d.key for d in index.docs]
    texts = [
        f"{d.name}: {d.description}" + (f"\n{body_of(d.skill)}" if body and d.skill else "")
        for d in index.docs
    ]
    mat = encoder.encode(texts)

    def run(query: str, k: int) -> list[str]:
        sims = np.einsum("ij,j->i", mat, encoder.encode([query])[0])
        return [keys[int(i)] for i in np.argsort(-sims, kind="stable")[:k]]

    return run


# ---- metrics -------------------------------------------------------------------------------


def scores(ranked: Sequence[str], relevant: set[str]) -> list[float]:
    first = next((i for i, r in enumerate(ranked[:10]) if r in relevant), None)
    hits = [1.0 if first is not None and first < k else 0.0 for k in KS]
    return [*hits, 0.0 if first is None else 1.0 / (first + 1)]


def table(ranker: Ranker_, queries: Sequence[Query]) -> dict[str, list[float]]:
    """Per kind (and ``all``): success@1/3/5/10, MRR@10 and the count, over non-``none`` queries."""
    sums: dict[str, list[float]] = {}
    for q in queries:
        if not q["relevant"]:
            continue
        row = scores(ranker(str(q["query"]), 10), set(q["relevant"]))
        for kind in {str(q.get("kind", "all")), "all"}:
            acc = sums.setdefault(kind, [0.0] * (len(row) + 1))
            for i, v in enumerate(row):
                acc[i] += v
            acc[-1] += 1
    return {k: [v / acc[-1] for v in acc[:-1]] + [acc[-1]] for k, acc in sums.items()}


def show(label: str, result: dict[str, list[float]]) -> None:
    for kind in sorted(result, key=lambda k: (k != "all", k)):
        m = result[kind]
        print(
            f"  {label:28s} {kind:10s} n={int(m[-1]):4d}  s@1 {m[0]:.3f}  s@3 {m[1]:.3f}  s@5 {m[2]:.3f}  "
            f"s@10 {m[3]:.3f}  mrr@10 {m[4]:.3f}",
            flush=True,
        )


def shows_right(index: SkillIndex, shown: Sequence[RankedDoc], right: set[str]) -> bool:
    """Whether the suggestions show a right skill or a copy of one. Copies (the same name and
    description, :func:`skillshelf.select.docs.copy_key`) take one suggestion, the best-ranked,
    which need not be the one a label names (two SkillsBench records, for one)."""
    from skillshelf.select.docs import copy_key

    docs = [index.docs[index.by_key[k]] for k in right if k in index.by_key]
    wanted = {copy_key(d.name, d.description) for d in docs}
    return any(r.doc.key in right or copy_key(r.doc.name, r.doc.description) in wanted for r in shown)


def abstention(ranker: Ranker, queries: Sequence[Query]) -> dict[str, float]:
    """On ``none`` requests, the share that get no suggestion; on the others whose right skill
    ranks in the top five, the share whose suggestions lose it (:func:`shows_right`). What
    counts as suggested is what the per-turn fragment offers
    (:func:`skillshelf.select.suggest.suggested`: the same call, threshold and maximum)."""
    from skillshelf.select.suggest import suggested

    none = quiet = found = lost = 0
    for q in queries:
        shown = suggested(ranker, str(q["query"]))
        if not q["relevant"]:
            none += 1
            quiet += not shown
            continue
        rel = set(q["relevant"])
        if any(r.doc.key in rel for r in ranker.rank(str(q["query"]), top_k=5).ranked):
            found += 1
            lost += not shows_right(ranker.index, shown, rel)
    return {
        "none": none,
        "none_without_suggestion": quiet / none if none else float("nan"),
        "with_right_skill": found,
        "right_skill_held_back": lost / found if found else float("nan"),
    }


def run_set(
    name: str, index: SkillIndex, splits: dict[str, list[Query]], args: argparse.Namespace
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    print(
        f"\n== {name}: {len(index)} candidates; "
        + ", ".join(f"{s} {len(q)} queries" for s, q in splits.items()),
        flush=True,
    )
    rankers: list[tuple[str, Ranker_]] = [("baseline bm25s full text", bm25s_ranker(index))]
    if not args.no_semantic:
        from skillshelf.select.semantic import available

        if available():
            rankers += [
                ("baseline MiniLM name+desc", minilm_ranker(index, body=False)),
                ("baseline MiniLM full text", minilm_ranker(index, body=True)),
            ]
    rankers.append(("bm25f (default's component)", ours(index, "bm25f")))
    rankers_sem: list[tuple[str, Any]] = []
    for label, make in semantic_variants("base" if args.no_semantic else "all"):
        sem = make(index)
        rankers.append((f"default {label}", ours(index, "default", sem)))
        rankers_sem.append((label, sem))
    for split, queries in splits.items():
        print(f" {split}:", flush=True)
        for label, ranker in rankers:
            result = table(ranker, queries)
            show(label, result)
            out[f"{split}/{label}"] = result
        for label, sem in rankers_sem:  # every set: how often the threshold holds a right skill back
            a = abstention(Ranker(index, semantic=sem, settings=RankingSettings()), queries)
            out[f"{split}/abstention/{label}"] = a
            print(
                f"  threshold ({label}): none without suggestion {a['none_without_suggestion']:.3f} of "
                f"{a['none']}; right skill held back {a['right_skill_held_back']:.3f} of "
                f"{a['with_right_skill']}",
                flush=True,
            )
    return out


def base_semantic(index: SkillIndex, cache_dir: Path) -> Any:
    """The base install's model (WordLlama) over ``index``, its vectors cached in ``cache_dir``."""
    from skillshelf.select import wordllama
    from skillshelf.select.ranking import _wordllama
    from skillshelf.select.semantic import SemanticIndex

    if not wordllama.available():
        return None
    return SemanticIndex.build(index, cache_dir=cache_dir, encoder=False, words=_wordllama())


def latency(scale: int) -> dict[str, Any]:
    """Index build and default-ranking query times at ``scale`` skills (the corpus repeated)."""
    import dataclasses
    import statistics

    corpus = load_corpus()
    bodies = {str(s.path): index_body_of(s) for s in corpus}
    skills = []
    for i in range(scale):
        base, rep = corpus[i % len(corpus)], i // len(corpus)
        path = base.path.parent / f"copy{rep}" / "SKILL.md" if rep else base.path
        skills.append(dataclasses.replace(base, name=f"{base.name}-{rep}" if rep else base.name, path=path))

    def read(skill: Skill) -> str:
        return bodies.get(str(skill.path), bodies.get(str(skill.path.parent.parent / "SKILL.md"), ""))

    short = [str(q["query"]) for q in jsonl(SHARED / "benchmarks" / "metatool" / "queries.jsonl")[:300]]
    long = [str(q["query"]) for q in jsonl(SHARED / "benchmarks" / "skillsbench-routing" / "queries.jsonl")]
    out: dict[str, Any] = {"skills": scale}
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        SkillIndex.build(skills, cache_dir=Path(tmp), body_reader=read)
        out["build_cold_s"] = time.perf_counter() - t
        t = time.perf_counter()
        index = SkillIndex.build(skills, cache_dir=Path(tmp), body_reader=read)
        out["build_warm_s"] = time.perf_counter() - t
        sem = base_semantic(index, Path(tmp))
        t = time.perf_counter()
        sem = base_semantic(index, Path(tmp))
        out["models_warm_s"] = time.perf_counter() - t
        ranker = Ranker(index, semantic=sem)
        ranker.rank(short[0])  # static vectors and impacts are derived on first use
        for label, qs in (("short", short), ("long", long)):
            for what, run in (
                ("rank", lambda q: rank_docs(index, q, top_k=10, semantic=sem)),
                ("rank+confidence", ranker.rank),
            ):
                times = []
                for q in qs:
                    t = time.perf_counter()
                    run(q)
                    times.append(1000 * (time.perf_counter() - t))
                times.sort()
                out[f"{what}_{label}_p50_ms"] = statistics.median(times)
                out[f"{what}_{label}_p99_ms"] = times[int(0.99 * (len(times) - 1))]
    print(
        f"\n== latency at {scale:,} skills (base install): build cold {out['build_cold_s']:.2f} s, "
        f"warm {out['build_warm_s']:.3f} s; WordLlama vectors warm {out['models_warm_s']:.3f} s",
        flush=True,
    )
    for label in ("short", "long"):
        for what in ("rank", "rank+confidence"):
            print(
                f"  {what:16s} {label:5s}: p50 {out[f'{what}_{label}_p50_ms']:.2f} ms  "
                f"p99 {out[f'{what}_{label}_p99_ms']:.2f} ms",
                flush=True,
            )
    return out


SETS = ("requests", "metatool", "skillsbench", "latency")


def _set_names(text: str) -> set[str]:
    """``--sets``: the named sets; an unknown name is an error, not a run that reports nothing."""
    names = {name.strip() for name in text.split(",") if name.strip()}
    unknown = sorted(names - set(SETS))
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown set(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(SETS)}"
        )
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sets",
        type=_set_names,
        default=",".join(SETS),
        help=f"comma-separated, of: {', '.join(SETS)}",
    )
    parser.add_argument("--metatool-queries", type=int, default=3000, help="held-out sample (0: all)")
    parser.add_argument("--show-dev", action="store_true", help="also print the dev rows (tuned on)")
    parser.add_argument("--no-semantic", action="store_true", help="base install rows only")
    parser.add_argument("--no-small", action="store_true", help="no small-library rows (skill-requests)")
    parser.add_argument("--scale", type=int, default=10_000, help="skills for the latency run")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--requests", type=Path, help="a held-out file in the skill-requests format, reported instead of test"
    )
    args = parser.parse_args()
    sets = args.sets
    if args.requests and "requests" not in sets:
        parser.error("--requests is reported by the requests set: add it to --sets")
    results: dict[str, Any] = {}
    if "requests" in sets:
        index, queries = requests_set()
        if args.requests:
            splits = {f"held-out ({args.requests.name})": held_out_requests(args.requests, index)}
        else:
            splits = {"test": [q for q in queries if q["split"] == "test"]}
        if args.show_dev:
            splits["dev (tuned on)"] = [q for q in queries if q["split"] == "dev"]
            splits["authored (tuned on)"] = authored_requests()
        results["requests"] = run_set("skill-requests", index, splits, args)
        if not args.no_small:
            from selection_small import small_libraries

            name, reported = next(iter(splits.items()))
            results["requests-small"] = small_libraries(reported, args, name)
    if "metatool" in sets:
        index, dev, test = metatool_split()
        splits = {"held-out": test[: args.metatool_queries or None]}
        if args.show_dev:
            splits["dev (tuned on)"] = dev[:1500]
        results["metatool"] = run_set("MetaTool", index, splits, args)
    if "skillsbench" in sets:
        index, queries = skillsbench_set()
        results["skillsbench"] = run_set("SkillsBench (whole, never tuned on)", index, {"all": queries}, args)
    if "latency" in sets:
        results["latency"] = latency(args.scale)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()

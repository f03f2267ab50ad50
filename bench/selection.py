"""Skill selection benchmark: MetaTool and SkillsBench routing, our selectors beside baselines.

    .venv/bin/python bench/selection.py                 # everything (semantic if installed)
    .venv/bin/python bench/selection.py --quick         # 1,000 MetaTool queries, no latency
    .venv/bin/python bench/selection.py --no-semantic --selectors default,bm25f

Data (read at run time from ../shared, never copied): ``benchmarks/metatool`` (199 tools; a
fixed random sample of single-tool queries, seed 0, 3,000 by default) and
``benchmarks/skillsbench-routing`` (87 tasks, 198 skills) with every skill of ``corpora/``
that loads as a distractor (minus those whose name equals a SkillsBench skill's name, which
are copies of the same skill). Baselines computed in the same run: ``bm25s`` over name +
description (English stop words, Snowball stemmer: the setting behind the issue's figures) and
dense MiniLM (all-MiniLM-L6-v2, cosine, ``"name: description"``). With these settings the
baselines reproduce the issue's figures (MetaTool BM25 0.564, MiniLM 0.753 recall@5).

``recall@k`` here is "at least one relevant entry in the top k" (success@k), the definition
behind the baselines in the issue; ``frac@5`` is the share of relevant entries in the top 5.
The SkillsBench skills ship only their frontmatter (no body); the distractors have bodies.
Also measured: latency at 10,000 skills, index build (cold, warm, incremental), and how
often the query-aware context shows a right skill with its description at a 200k window.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO / "src"))

from skillshelf.select import SEMANTIC_SELECTORS, rank_docs  # noqa: E402
from skillshelf.select.index import SkillIndex  # noqa: E402
from skillshelf.skills.model import RootOrigin, Scope, Skill  # noqa: E402

Ranker = Callable[[str, int], list[str]]
LABELS = {"semantic": "semantic (MiniLM, framed)", "wordllama": "wordllama alone (extra)"}


def jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_corpus() -> list[Skill]:
    from skillshelf.skills.discover import discover_in

    folders = sorted(p for p in (SHARED / "corpora").iterdir() if p.is_dir())
    found = discover_in(folders)
    return [s for s in found.skills if s.description.strip()]


def tool_skill(tool: dict[str, object], root: Path) -> Skill:
    tid = str(tool["id"])
    return Skill(
        name=str(tool["name"]),
        description=str(tool["description"]),
        path=root / tid / "SKILL.md",
        root=root,
        scope=Scope.USER,
        origin=RootOrigin.EXTRA,
    )


def metrics(ranked: Sequence[str], relevant: set[str]) -> tuple[float, float, float, float]:
    hit1 = 1.0 if ranked[:1] and ranked[0] in relevant else 0.0
    found5 = len(set(ranked[:5]) & relevant)
    rr = next((1.0 / (i + 1) for i, r in enumerate(ranked[:10]) if r in relevant), 0.0)
    return hit1, 1.0 if found5 else 0.0, found5 / len(relevant), rr


def evaluate(
    name: str, ranker: Ranker, queries: Sequence[dict[str, object]], names: dict[str, str] | None = None
) -> dict[str, float]:
    """The metrics over ``queries``. With ``names`` (entry -> skill name) also ``name@1``: the
    first entry has the name of a relevant skill (SkillsBench ships several different skills
    under one name, e.g. three ``xlsx``, whose descriptions are all that is indexed of them)."""
    sums = [0.0, 0.0, 0.0, 0.0]
    by_name = 0.0
    times: list[float] = []
    for q in queries:
        t = time.perf_counter()
        ranked = ranker(str(q["query"]), 10)
        times.append(time.perf_counter() - t)
        rel = {str(r) for r in q["relevant"]}  # type: ignore[attr-defined]
        for i, v in enumerate(metrics(ranked, rel)):
            sums[i] += v
        if names is not None and ranked:
            by_name += names.get(ranked[0]) in {names.get(r) for r in rel}
    n = len(queries)
    times.sort()
    out = {
        "recall@1": sums[0] / n,
        "recall@5": sums[1] / n,
        "frac@5": sums[2] / n,
        "mrr@10": sums[3] / n,
        "p50_ms": 1000 * times[n // 2],
        "p99_ms": 1000 * times[min(n - 1, int(n * 0.99))],
    }
    if names is not None:
        out["name@1"] = by_name / n
    return out


def show(bench: str, name: str, m: dict[str, float]) -> None:
    extra = f"  name@1 {m['name@1']:.3f}" if "name@1" in m else ""
    print(
        f"  {bench:12s} {name:26s} r@1 {m['recall@1']:.3f}  r@5 {m['recall@5']:.3f}  frac@5 {m['frac@5']:.3f}"
        f"  mrr {m['mrr@10']:.3f}  p50 {m['p50_ms']:.2f} ms  p99 {m['p99_ms']:.2f} ms{extra}",
        flush=True,
    )


def bm25s_ranker(ids: list[str], texts: list[str]) -> Ranker:
    """bm25s as the issue measured it: English stop words and the Snowball stemmer (PyStemmer)."""
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False
    )

    def run(query: str, k: int) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False)
        if not tokens.vocab:
            return []
        docs, scores = retriever.retrieve(tokens, k=min(k, len(ids)), show_progress=False)
        return [ids[int(d)] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]

    return run


def minilm_ranker(ids: list[str], vectors: object, encoder: object) -> Ranker:
    import numpy as np

    mat = np.asarray(vectors)

    def run(query: str, k: int) -> list[str]:
        from threadpoolctl import threadpool_limits

        q = encoder.encode([query])[0]  # type: ignore[attr-defined]
        with threadpool_limits(limits=1, user_api="blas"):
            sims = mat @ q
        order = np.argsort(-sims, kind="stable")[:k]
        return [ids[int(i)] for i in order]

    return run


def ours(index: SkillIndex, selector: str, key: Callable[[object], str], semantic: object = None) -> Ranker:
    def run(query: str, k: int) -> list[str]:
        return [key(r.doc) for r in rank_docs(index, query, top_k=k, selector=selector, semantic=semantic)]  # type: ignore[arg-type]

    return run


def run_bench(args: argparse.Namespace) -> dict[str, object]:
    from skillshelf.select import wordllama
    from skillshelf.select.semantic import SemanticIndex, available

    results: dict[str, object] = {}
    mt = SHARED / "benchmarks" / "metatool"
    sb = SHARED / "benchmarks" / "skillsbench-routing"
    all_queries = jsonl(mt / "queries.jsonl")
    random.Random(0).shuffle(all_queries)
    sb_queries = jsonl(sb / "queries.jsonl")
    corpus = load_corpus()
    short_texts, long_texts = (
        [str(q["query"]) for q in all_queries[:500]],
        [str(q["query"]) for q in sb_queries],
    )
    if args.latency_only:
        results["latency"] = latency(corpus, short_texts, long_texts, args.scale)
        return results
    use_sem = available() and not args.no_semantic
    cache = Path(tempfile.mkdtemp(prefix="skillshelf-bench-"))
    encoder = None
    words: wordllama.WordLlama | bool = False
    if use_sem:
        from skillshelf.select.minilm import MiniLM

        encoder = MiniLM()
        words = wordllama.WordLlama() if wordllama.available() else False
    selectors = args.selectors.split(",")

    # ---- MetaTool
    tools = jsonl(mt / "tools.jsonl")
    queries = all_queries[: args.metatool_queries]
    mt_index = SkillIndex.from_tools([(str(t["id"]), str(t["name"]), str(t["description"])) for t in tools])
    # ---- SkillsBench routing with corpus distractors
    sb_tools = jsonl(sb / "tools.jsonl")
    names = {str(t["name"]).lower() for t in sb_tools}
    distractors = [s for s in corpus if s.name.lower() not in names]
    root = Path("/skillsbench-routing")
    sb_skills = [tool_skill(t, root) for t in sb_tools]
    sb_index = SkillIndex.build(sb_skills + distractors, cache_dir=cache / "sb", body_reader=_reader())
    print(
        f"MetaTool: {len(queries)} queries, {len(tools)} tools.  SkillsBench: {len(sb_queries)} tasks, "
        f"{len(sb_tools)} skills + {len(distractors)} distractors ({len(corpus)} corpus skills loaded).",
        flush=True,
    )

    def sb_key(doc: object) -> str:
        key = str(doc.key)  # type: ignore[attr-defined]
        return key.split("/")[-2] if key.startswith(str(root)) else key

    sets = {
        "metatool": (mt_index, queries, lambda d: str(d.tool_id)),  # type: ignore[attr-defined]
        "skillsbench": (sb_index, sb_queries, sb_key),
    }
    for bench, (index, qs, key) in sets.items():
        print(f"\n{bench}", flush=True)
        ids = [key(d) for d in index.docs]
        names = {key(d): d.name for d in index.docs} if bench == "skillsbench" else None
        texts = [f"{d.name} {d.description}" for d in index.docs]
        m = evaluate("bm25s", bm25s_ranker(ids, texts), qs, names)
        show(bench, "baseline bm25s", m)
        results[f"{bench}/bm25s"] = m
        sem = None
        if use_sem:
            sem = SemanticIndex.build(index, cache_dir=cache, encoder=encoder, words=words)
            plain = encoder.encode(
                [f"{d.name}: {d.description}" for d in index.docs]
            )  # as the issue measured it
            m = evaluate("minilm", minilm_ranker(ids, plain, encoder), qs, names)
            show(bench, "baseline MiniLM", m)
            results[f"{bench}/minilm"] = m
        for sel in selectors:
            if sel in SEMANTIC_SELECTORS and (sem is None or (sel == "wordllama" and sem.words is None)):
                continue
            m = evaluate(sel, ours(index, sel, key, sem if sel in SEMANTIC_SELECTORS else None), qs, names)
            show(bench, LABELS.get(sel, sel), m)
            results[f"{bench}/{sel}"] = m
            if sem is not None and sel == "default":
                if sem.words is not None:  # the torch-free extra alone: skillshelf[wordllama]
                    words_only = SemanticIndex(index.docs, words=sem.words, word_vectors=sem.word_vectors)
                    m = evaluate(sel, ours(index, sel, key, words_only), qs, names)
                    show(bench, "default + wordllama", m)
                    results[f"{bench}/default+wordllama"] = m
                m = evaluate(sel, ours(index, sel, key, sem), qs, names)
                show(bench, "default + semantic", m)
                results[f"{bench}/default+semantic"] = m
    if not args.quick:
        results["context"] = context_coverage(sb_index, sb_skills + distractors, sb_queries, sb_key)
        results["latency"] = latency(corpus, short_texts, long_texts, args.scale)
    return results


_BODIES: dict[str, str] = {}


def _reader() -> Callable[[Skill], str]:
    from skillshelf.skills.discover import read_skill_body

    def read(skill: Skill) -> str:
        key = str(skill.path)
        if key not in _BODIES:
            _BODIES[key] = read_skill_body(skill) if skill.path.exists() else ""
        return _BODIES[key]

    return read


def context_coverage(
    index: SkillIndex, skills: list[Skill], queries: list[dict[str, object]], key: Callable[[object], str]
) -> dict[str, object]:
    """Share of tasks for which a right skill is shown with its description at a 200k window."""
    from skillshelf.select.suggest import default_suggestion_budget, stable_catalog, suggestion_fragment
    from skillshelf.skills.catalog import default_budget

    catalog = stable_catalog(skills, default_budget(200_000))
    budget = default_suggestion_budget(200_000)
    shown = 0
    in_catalog = 0
    tokens: list[int] = []
    for q in queries:
        rel = {str(r) for r in q["relevant"]}  # type: ignore[attr-defined]
        sug = suggestion_fragment(index, str(q["query"]), budget_tokens=budget)
        tokens.append(sug.tokens)
        keys = {key(index.docs[index.by_key[str(s.path)]]) for s in sug.skills}
        cat_hit = any(
            f"- {s.name}: {s.description[:40]}" in catalog.text
            for s in skills
            if key(index.docs[index.by_key[str(s.path)]]) in rel and s.description
        )
        in_catalog += cat_hit
        shown += bool(keys & rel) or cat_hit
    n = len(queries)
    out = {
        "tasks": n,
        "shown_with_description": shown / n,
        "catalog_alone": in_catalog / n,
        "catalog_included": catalog.report.included,
        "catalog_total": catalog.report.total,
        "suggestion_budget_tokens": budget,
        "suggestion_tokens_p50": statistics.median(tokens),
    }
    print(
        f"\ncontext at a 200k window: catalog lists {catalog.report.included}/{catalog.report.total} skills "
        f"(descriptions shown for a right skill in {in_catalog}/{n} tasks); with the per-turn fragment "
        f"({budget} tokens, median {statistics.median(tokens)} used) a right skill is shown with its "
        f"description in {shown}/{n} tasks = {shown / n:.3f}",
        flush=True,
    )
    return out


def latency(corpus: list[Skill], short: list[str], long: list[str], scale: int) -> dict[str, object]:
    """Index build and query latency at ``scale`` skills (the corpus repeated under new paths)."""
    import dataclasses

    reader = _reader()
    bodies = {str(s.path): reader(s) for s in corpus}
    skills = []
    for i in range(scale):
        base = corpus[i % len(corpus)]
        rep = i // len(corpus)
        path = base.path.parent / (f"copy{rep}" if rep else "") / "SKILL.md" if rep else base.path
        skills.append(
            dataclasses.replace(base, name=base.name if not rep else f"{base.name}-{rep}", path=path)
        )

    def read(skill: Skill) -> str:
        return bodies.get(str(skill.path), bodies.get(str(skill.path.parent.parent / "SKILL.md"), ""))

    out: dict[str, object] = {"skills": scale}
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        t = time.perf_counter()
        SkillIndex.build(skills, cache_dir=cache, body_reader=read)
        out["build_cold_s"] = time.perf_counter() - t
        t = time.perf_counter()
        index = SkillIndex.build(skills, cache_dir=cache, body_reader=read)
        out["build_warm_s"] = time.perf_counter() - t
        changed = [
            dataclasses.replace(s, description=s.description + " (edited)") if i % 100 == 0 else s
            for i, s in enumerate(skills)
        ]
        t = time.perf_counter()
        inc = SkillIndex.build(changed, cache_dir=cache, body_reader=read)
        out["build_incremental_1pct_s"] = time.perf_counter() - t
        out["incremental_analysed"] = inc.stats.analysed
        t = time.perf_counter()
        SkillIndex.build(changed, cache_dir=cache, body_reader=read)
        out["build_warm_after_change_s"] = time.perf_counter() - t
        for sel in ("bm25f", "ngram"):  # impacts are derived per term on first use
            t = time.perf_counter()
            rank_docs(index, short[0], top_k=10, selector=sel)
            out[f"first_{sel}_query_ms"] = 1000 * (time.perf_counter() - t)
        # the default query needs every skill's static vector: encoded once, then kept on disk
        for label, skill_set in (("static_cold", skills), ("static_1pct", changed), ("static_warm", changed)):
            fresh = (
                index
                if label == "static_cold"
                else SkillIndex.build(skill_set, cache_dir=cache, body_reader=read)
            )
            t = time.perf_counter()
            rank_docs(fresh, short[0], top_k=10, selector="default")
            out[f"first_default_{label}_ms"] = 1000 * (time.perf_counter() - t)
        out.update(_wordllama_latency(index, cache, short, long))
    import bm25s

    texts = [f"{s.name} {s.description} {read(s)}" for s in skills]
    t = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    out["bm25s_build_s"] = time.perf_counter() - t

    def bm25s_query(q: str) -> None:
        tokens = bm25s.tokenize([q], stopwords="en", show_progress=False)
        if tokens.vocab:
            retriever.retrieve(tokens, k=10, show_progress=False)

    for label, qs in (("short", short), ("long", long)):
        out.update(_query_times(f"bm25s_{label}", bm25s_query, qs))
    for label, qs in (("short", short), ("long", long)):
        for sel in ("default", "bm25f"):
            out.update(
                _query_times(
                    f"{sel}_{label}", functools.partial(rank_docs, index, top_k=10, selector=sel), qs
                )
            )
    print(
        f"\nlatency at {scale:,} skills: build cold {out['build_cold_s']:.2f} s, warm {out['build_warm_s']:.3f} s, "
        f"1% changed {out['build_incremental_1pct_s']:.2f} s ({out['incremental_analysed']} re-analysed), "
        f"warm after the change {out['build_warm_after_change_s']:.3f} s; first query after a warm build: "
        f"bm25f {out['first_bm25f_query_ms']:.1f} ms, ngram {out['first_ngram_query_ms']:.1f} ms",
        flush=True,
    )
    print(
        f"  first default query (static vectors): none cached {out['first_default_static_cold_ms']:.0f} ms, "
        f"after the 1% change {out['first_default_static_1pct_ms']:.0f} ms, "
        f"all cached {out['first_default_static_warm_ms']:.0f} ms",
        flush=True,
    )
    if "wordllama_vectors_cold_s" in out:
        print(
            f"  wordllama extra: document vectors {out['wordllama_vectors_cold_s']:.2f} s cold, "
            f"{out['wordllama_vectors_warm_s']:.2f} s cached; default + wordllama p50 "
            f"{out['default+wordllama_short_p50_ms']:.2f} ms short, {out['default+wordllama_long_p50_ms']:.2f} ms long",
            flush=True,
        )
    print(f"  bm25s (same skills, name + description + body): build {out['bm25s_build_s']:.2f} s", flush=True)
    for label in ("short", "long"):
        for sel in ("default", "bm25f", "bm25s"):
            print(
                f"  {sel:8s} {label:5s} queries: p50 {out[f'{sel}_{label}_p50_ms']:.2f} ms  "
                f"p99 {out[f'{sel}_{label}_p99_ms']:.2f} ms",
                flush=True,
            )
    return out


def _wordllama_latency(index: SkillIndex, cache: Path, short: list[str], long: list[str]) -> dict[str, float]:
    """The torch-free extra at scale: document vectors (cold, cached) and default query times."""
    from skillshelf.select import wordllama
    from skillshelf.select.semantic import SemanticIndex

    if not wordllama.available():
        return {}
    words = wordllama.WordLlama()
    out: dict[str, float] = {}
    for label in ("cold", "warm"):
        t = time.perf_counter()
        sem = SemanticIndex.build(index, cache_dir=cache, encoder=False, words=words)
        out[f"wordllama_vectors_{label}_s"] = time.perf_counter() - t
    for label, qs in (("short", short), ("long", long)):
        out.update(
            _query_times(
                f"default+wordllama_{label}",
                lambda q: rank_docs(index, q, top_k=10, selector="default", semantic=sem),
                qs,
            )
        )
    return out


def _query_times(prefix: str, run: Callable[[str], object], queries: Sequence[str]) -> dict[str, float]:
    """``{prefix}_p50_ms`` and ``{prefix}_p99_ms`` of ``run`` over ``queries``."""
    times = []
    for q in queries:
        t = time.perf_counter()
        run(q)
        times.append(time.perf_counter() - t)
    times.sort()
    return {
        f"{prefix}_p50_ms": 1000 * times[len(times) // 2],
        f"{prefix}_p99_ms": 1000 * times[int(len(times) * 0.99)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--metatool-queries", type=int, default=3000)
    parser.add_argument(
        "--selectors",
        default="default,bm25f,ngram,multi,rrf,semantic,wordllama,codex_lexical,codex_bm25,codex_ngram,codex_multi",
    )
    parser.add_argument("--no-semantic", action="store_true")
    parser.add_argument(
        "--quick", action="store_true", help="1,000 MetaTool queries; no latency or context runs"
    )
    parser.add_argument("--scale", type=int, default=10_000, help="skills for the latency run")
    parser.add_argument("--latency-only", action="store_true", help="only the index build and latency run")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    if args.quick:
        args.metatool_queries = min(args.metatool_queries, 1000)
    results = run_bench(args)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()

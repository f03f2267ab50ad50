"""Fit the reorder of the default ranking's best skills (with MiniLM) on tuning data only.

    .venv/bin/python bench/fit_rerank.py          # cross-validated figures, then the constants
    .venv/bin/python bench/fit_rerank.py --no-cv  # the constants only

Data: the skill-requests **dev** split and ``bench/data/authored-requests.jsonl`` over every
corpus skill, and the first :data:`METATOOL_QUERIES` of the MetaTool dev half (id hash even,
shuffled with seed 0, see ``bench/selection_sets.py``), each ranked by the default ranking with
WordLlama and MiniLM (the ``semantic`` extra) before any reorder; per request the best
:data:`~skillshelf.select.rerank.DEPTH` skills and their
:data:`~skillshelf.select.rerank.MINILM_FEATURES`. The model: a linear score, ``OFFSET`` times the
default's score plus one coefficient per feature and, for a skill file (not a tool record), a
second set added to it, fitted by a listwise softmax loss (the right skills of a request share the target)
with an L2 penalty of :data:`L2` on the standardised coefficients; each source weighs the same.
Requests whose best skills hold no right skill (or only right ones) say nothing and are left out.
Paste the printed constants into ``MODELS`` of ``src/skillshelf/select/rerank.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from selection import semantic_variants
from selection_sets import authored_requests, metatool_split, requests_set

from skillshelf.select.rerank import DEPTH, candidate_features, skill_files
from skillshelf.select.selectors import default_parts
from skillshelf.select.selectors.sparse import is_short

METATOOL_QUERIES = 1500
OFFSET = 10.0
L2 = 1.0
FOLDS = 5
SOURCES = ("skill-requests dev", "authored", "MetaTool dev half")
Item = tuple[int, Any, Any, Any]  # source, features (DEPTH x F), right (DEPTH), skill files (DEPTH)


def items() -> list[Item]:
    """Per tuning request with a right skill: its source, its candidates' features, labels and
    which of them are skill files."""
    sr_index, sr_queries = requests_set()
    mt_index, mt_dev, _ = metatool_split()
    make = dict(semantic_variants("all"))["+ minilm (semantic)"]
    sets = (
        (sr_index, [q for q in sr_queries if q["split"] == "dev" and q["relevant"]]),
        (sr_index, [q for q in authored_requests() if q["relevant"]]),
        (mt_index, [q for q in mt_dev if q["relevant"]][:METATOOL_QUERIES]),
    )
    found: list[Item] = []
    for source, (index, queries) in enumerate(sets):
        semantic = make(index)
        for q in queries:
            parts = default_parts(index, q["query"], semantic, reorder=False)
            top = np.argsort(-parts.total, kind="stable")[:DEPTH]
            x = candidate_features(index, parts, parts.weights, top, is_short(q["query"]))
            right = set(q["relevant"])
            labels = np.array([index.docs[i].key in right for i in top])
            found.append((source, x, labels, skill_files(index, top)))
    return found


def expand(x: Any, files: Any) -> Any:
    return np.hstack([x, x * files[:, None]])


def fit(data: list[Item]) -> tuple[Any, Any]:
    """``(tool record, skill file)`` coefficients over the raw features."""
    counts = np.bincount([s for s, _, _, _ in data], minlength=len(SOURCES))
    usable = [(s, expand(x, m), x, y / y.sum()) for s, x, y, m in data if y.any() and not y.all()]
    stacked = np.vstack([x for _, x, _, _ in usable])
    mu, sd = stacked.mean(0), stacked.std(0) + 1e-6
    xs = [(x - mu) / sd for _, x, _, _ in usable]
    ys = [y for _, _, _, y in usable]
    offs = [OFFSET * raw[:, 0] for _, _, raw, _ in usable]
    wts = np.array([1.0 / counts[s] for s, _, _, _ in usable])
    wts /= wts.mean()
    w = np.zeros(stacked.shape[1])

    def loss(w: Any) -> float:
        total = 0.5 * L2 * float(w @ w)
        for x, y, o, wt in zip(xs, ys, offs, wts, strict=True):
            s = x @ w + o
            m = s.max()
            total += wt * float(m + np.log(np.exp(s - m).sum()) - y @ s)
        return total

    current = loss(w)
    for _ in range(40):  # Newton steps with a backtracking line search
        grad, hess = L2 * w.copy(), L2 * np.eye(len(w))
        for x, y, o, wt in zip(xs, ys, offs, wts, strict=True):
            s = x @ w + o
            p = np.exp(s - s.max())
            p /= p.sum()
            grad += wt * x.T @ (p - y)
            xp = x.T @ p
            hess += wt * ((x.T * p) @ x - np.outer(xp, xp))
        step, t = np.linalg.solve(hess, grad), 1.0
        new = loss(w - step)
        while new > current and t > 1e-4:
            t /= 2
            new = loss(w - t * step)
        w = w - t * step
        done, current = current - new < 1e-7, new
        if done:
            break
    raw = w / sd
    f = len(raw) // 2
    return raw[:f], raw[:f] + raw[f:]


def reorder(x: Any, files: Any, model: tuple[Any, Any]) -> Any:
    coef = np.where(files[:, None], model[1], model[0])
    return np.argsort(-(OFFSET * x[:, 0] + (x * coef).sum(axis=1)), kind="stable")


def figures(y: Any) -> list[float]:
    first = np.nonzero(y[:10])[0]
    r = int(first[0]) if len(first) else None
    return [float(r == 0), float(r is not None and r < 5), 0.0 if r is None else 1.0 / (r + 1)]


def cross_validate(data: list[Item], seeds: tuple[int, ...] = (0, 1)) -> None:
    """Grouped 5-fold (one request a group, stratified by source), before and after."""
    before: dict[int, list[list[float]]] = {}
    after: dict[int, list[list[float]]] = {}
    for s, _, y, _ in data:
        before.setdefault(s, []).append(figures(y))
    for seed in seeds:
        rng = np.random.default_rng(seed)
        fold = np.zeros(len(data), int)
        for s in range(len(SOURCES)):
            at = np.array([i for i, d in enumerate(data) if d[0] == s], int)
            fold[rng.permutation(at)] = np.arange(len(at)) % FOLDS
        for k in range(FOLDS):
            model = fit([d for d, f in zip(data, fold, strict=True) if f != k])
            for (s, x, y, m), f in zip(data, fold, strict=True):
                if f == k:
                    after.setdefault(s, []).append(figures(y[reorder(x, m, model)]))
    for label, table in (("before", before), ("after (CV)", after)):
        means = {s: np.mean(v, axis=0) for s, v in table.items()}
        print(
            f"{label:11s} mean MRR@10 {np.mean([m[2] for m in means.values()]):.4f}  "
            + "  ".join(
                f"{SOURCES[s]}: s@1 {m[0]:.3f} s@5 {m[1]:.3f} MRR@10 {m[2]:.3f}"
                for s, m in sorted(means.items())
            ),
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-cv", action="store_true", help="print the constants only")
    args = parser.parse_args()
    data = items()
    if not args.no_cv:
        cross_validate(data)
    plain, body = fit(data)
    print(f"OFFSET = {OFFSET}")
    print(f"COEFFICIENTS = ({', '.join(f'{c:.4f}' for c in plain)})")
    print(f"COEFFICIENTS_BODY = ({', '.join(f'{c:.4f}' for c in body)})")


if __name__ == "__main__":
    main()

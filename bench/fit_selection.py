"""Fit the default ranking's confidence model on dev data only, and print the constants.

    .venv/bin/python bench/fit_selection.py            # every combination of installed models
    .venv/bin/python bench/fit_selection.py --models base

Data (read at run time from ../shared): the skill-requests **dev** split over every corpus
skill, and 300 queries of the MetaTool dev half (id hash even, see ``bench/selection.py``).
Label 1: a request whose top five hold a right skill; label 0: a ``none`` request; requests
whose top five miss say nothing about confidence and are left out. The model is an L2-penalised
logistic regression (Newton steps) over :data:`skillshelf.select.confidence.FEATURES`; the
threshold is the largest at which at most 3 % of the label-1 requests fall below it. 5-fold
cross-validation on the same data estimates what the held-out sets will show. Paste the
printed ``Calibration`` values into ``select/confidence.py``.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from selection import (
    metatool_split,
    requests_set,
    semantic_variants,
)

from skillshelf.select.confidence import evidence
from skillshelf.select.selectors import default_parts
from skillshelf.select.selectors.sparse import query_weights

MAX_LOST = 0.03
L2 = 1.0


def rows(index, queries, semantic):  # type: ignore[no-untyped-def]
    """(features, label) of each usable query."""
    models = semantic.models if semantic is not None else ()
    xs, ys = [], []
    for q in queries:
        parts = default_parts(index, q["query"], semantic)
        feats = evidence(index, parts, query_weights(q["query"]), models)
        if feats is None:
            continue
        order = np.argsort(-parts.total, kind="stable")[:5]
        keys = {index.docs[i].key for i in order}
        if not q["relevant"]:
            xs.append(feats)
            ys.append(0.0)
        elif keys & set(q["relevant"]):
            xs.append(feats)
            ys.append(1.0)
    return np.array(xs), np.array(ys)


def fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x1 = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(x1.shape[1])
    reg = L2 * np.r_[np.ones(len(w) - 1), 0.0]
    for _ in range(50):
        p = 1 / (1 + np.exp(-(x1 @ w)))
        grad = x1.T @ (p - y) + reg * w
        hess = (x1 * (p * (1 - p))[:, None]).T @ x1 + np.diag(reg)
        w -= np.linalg.solve(hess, grad)
    return w


def prob(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-(np.hstack([x, np.ones((len(x), 1))]) @ w)))


def threshold(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    pos = np.sort(prob(w, x[y == 1]))
    return float(pos[int(np.floor(MAX_LOST * len(pos)))])


def cross_validate(x: np.ndarray, y: np.ndarray, folds: int = 5) -> tuple[float, float]:
    """(share of label-0 requests held out below the fold's threshold, share of label-1 ones)."""
    order = np.random.default_rng(0).permutation(len(y))
    held0 = held1 = n0 = n1 = 0
    for part in np.array_split(order, folds):
        train = np.setdiff1d(order, part)
        w = fit(x[train], y[train])
        t = threshold(w, x[train], y[train])
        p = prob(w, x[part])
        held0 += int((p[y[part] == 0] < t).sum())
        held1 += int((p[y[part] == 1] < t).sum())
        n0 += int((y[part] == 0).sum())
        n1 += int((y[part] == 1).sum())
    return held0 / max(n0, 1), held1 / max(n1, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="all", help="lexical (adds the no-model ranking), base or all")
    args = parser.parse_args()
    sr_index, sr_queries = requests_set()
    dev = [q for q in sr_queries if q["split"] == "dev"]
    mt_index, mt_dev, _ = metatool_split()
    mt_dev = random.Random(0).sample(mt_dev, 300)
    for label, make in semantic_variants(args.models):
        x1, y1 = rows(sr_index, dev, make(sr_index))
        x2, y2 = rows(mt_index, mt_dev, make(mt_index))
        x, y = np.vstack([x1, x2]), np.r_[y1, y2]
        w = fit(x, y)
        t = threshold(w, x, y)
        none_held, lost = cross_validate(x, y)
        print(
            f"{label}: Calibration(coefficients=({', '.join(f'{c:.3f}' for c in w[:-1])}), "
            f"intercept={w[-1]:.3f})  threshold {t:.3f}  (5-fold CV: none held back {none_held:.3f}, "
            f"right skills held back {lost:.3f})",
            flush=True,
        )


if __name__ == "__main__":
    main()

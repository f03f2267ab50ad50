"""Fit the default ranking's confidence model on dev data only, and print the constants.

    .venv/bin/python bench/fit_selection.py            # every combination of installed models
    .venv/bin/python bench/fit_selection.py --models base

Data (read at run time from ../shared): the skill-requests **dev** split over every corpus
skill, and 300 queries of the MetaTool dev half (id hash even, see ``bench/selection.py``).
Label 1: a request whose top five hold a right skill; label 0: a ``none`` request; requests
whose top five miss say nothing about confidence and are left out. The model is an L2-penalised
logistic regression (Newton steps) over :data:`skillshelf.select.confidence.FEATURES`; the
threshold is the largest at which at most 3 % of the label-1 skill requests and at most 3 % of
the label-1 MetaTool queries fall below it (one threshold serves a folder of skills and a list
of tools alike). The printed intercept is shifted so that this threshold falls at
:data:`~skillshelf.select.confidence.DEFAULT_MIN_CONFIDENCE`: one default serves every
combination of installed models, and what reaches it is what the fitted threshold lets through.

Cross-validation (5 folds stratified by set and label, repeated 10 times, each fold fitting the
model and its threshold on the others) estimates what ``bench/selection.py`` reports on the
held-out sets, counted the same way: the share of ``none`` requests with no suggestion, the
share of the skill requests with a right skill in the top five that the suggestions lose (below
the threshold, or cut as below half the best score) and the share of MetaTool queries held
back. Paste the printed ``Calibration`` values into ``select/confidence.py``.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from selection import (
    metatool_split,
    requests_set,
    semantic_variants,
)

from skillshelf.select.confidence import DEFAULT_MIN_CONFIDENCE, evidence
from skillshelf.select.ranking import MIN_RELATIVE_SCORE
from skillshelf.select.selectors import default_parts
from skillshelf.select.selectors.sparse import query_weights

MAX_LOST = 0.03
L2 = 1.0
FOLDS = 5
REPEATS = 10
REQUESTS, METATOOL = 0, 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Rows:
    """One row per usable query: features, label, the set it comes from, and (label 1) whether
    the suggestions keep a right skill when the confidence passes."""

    x: np.ndarray
    y: np.ndarray
    source: np.ndarray
    kept: np.ndarray

    def __getitem__(self, which: np.ndarray) -> Rows:
        return Rows(x=self.x[which], y=self.y[which], source=self.source[which], kept=self.kept[which])

    def __len__(self) -> int:
        return len(self.y)


def rows(index, queries, semantic, source: int) -> Rows:  # type: ignore[no-untyped-def]
    """The usable queries of one set."""
    models = semantic.models if semantic is not None else ()
    xs, ys, kept = [], [], []
    for q in queries:
        parts = default_parts(index, q["query"], semantic)
        feats = evidence(index, parts, query_weights(q["query"]), models)
        if feats is None:
            continue
        order = np.argsort(-parts.total, kind="stable")[:5]
        right = set(q["relevant"])
        if not right:
            xs.append(feats)
            ys.append(0.0)
            kept.append(False)
        elif {index.docs[i].key for i in order} & right:
            floor = float(parts.total[order[0]]) * MIN_RELATIVE_SCORE
            xs.append(feats)
            ys.append(1.0)
            kept.append(any(index.docs[i].key in right for i in order if parts.total[i] >= floor))
    n = len(ys)
    return Rows(x=np.array(xs), y=np.array(ys), source=np.full(n, source), kept=np.array(kept, bool))


def joined(a: Rows, b: Rows) -> Rows:
    return Rows(
        x=np.vstack([a.x, b.x]),
        y=np.r_[a.y, b.y],
        source=np.r_[a.source, b.source],
        kept=np.r_[a.kept, b.kept],
    )


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


def logit(p: float) -> float:
    return float(np.log(p / (1 - p)))


def threshold(w: np.ndarray, data: Rows) -> float:
    """The largest threshold at which at most :data:`MAX_LOST` of each set's label-1 rows fall
    below it."""
    found = []
    for source in (REQUESTS, METATOOL):
        pos = np.sort(prob(w, data.x[(data.y == 1) & (data.source == source)]))
        if len(pos):
            found.append(float(pos[int(np.floor(MAX_LOST * len(pos)))]))
    return min(found)


def cross_validate(data: Rows) -> tuple[float, float, float]:
    """(share of ``none`` requests with no suggestion, share of skill requests with a right skill
    in the top five whose suggestions lose it, share of MetaTool queries held back)."""
    quiet = none = lost = found = mt_lost = mt = 0
    strata = data.source * 2 + data.y.astype(int)
    for seed in range(REPEATS):
        fold = np.empty(len(data), int)
        rng = np.random.default_rng(seed)
        for stratum in np.unique(strata):
            members = rng.permutation(np.flatnonzero(strata == stratum))
            fold[members] = np.arange(len(members)) % FOLDS
        for k in range(FOLDS):
            train, test = data[fold != k], data[fold == k]
            w = fit(train.x, train.y)
            shown = prob(w, test.x) >= threshold(w, train)
            req = test.source == REQUESTS
            none += int((req & (test.y == 0)).sum())
            quiet += int((req & (test.y == 0) & ~shown).sum())
            found += int((req & (test.y == 1)).sum())
            lost += int((req & (test.y == 1) & ~(shown & test.kept)).sum())
            mt += int((~req & (test.y == 1)).sum())
            mt_lost += int((~req & (test.y == 1) & ~shown).sum())
    return quiet / max(none, 1), lost / max(found, 1), mt_lost / max(mt, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="all", help="lexical (adds the no-model ranking), base or all")
    args = parser.parse_args()
    sr_index, sr_queries = requests_set()
    dev = [q for q in sr_queries if q["split"] == "dev"]
    mt_index, mt_dev, _ = metatool_split()
    mt_dev = random.Random(0).sample(mt_dev, 300)
    for label, make in semantic_variants(args.models):
        data = joined(
            rows(sr_index, dev, make(sr_index), REQUESTS), rows(mt_index, mt_dev, make(mt_index), METATOOL)
        )
        w = fit(data.x, data.y)
        t = threshold(w, data)
        quiet, lost, mt_lost = cross_validate(data)
        shift = logit(DEFAULT_MIN_CONFIDENCE) - logit(t)  # the threshold falls at the default
        print(
            f"{label}: Calibration(coefficients=({', '.join(f'{c:.3f}' for c in w[:-1])}), "
            f"intercept={w[-1] + shift:.3f})  fitted threshold {t:.3f}, intercept shifted by {shift:+.3f} to "
            f"put it at {DEFAULT_MIN_CONFIDENCE}  ({FOLDS}-fold CV x {REPEATS}: none without "
            f"suggestion {quiet:.3f}, right skill held back {lost:.3f}, MetaTool held back {mt_lost:.3f})",
            flush=True,
        )


if __name__ == "__main__":
    main()

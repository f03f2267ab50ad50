"""The fusion's quantile is numpy's, value for value, without numpy.ma."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from skillshelf.select.fusion import quantile

SCORES = arrays(
    np.float32,
    st.integers(1, 300),
    elements=st.floats(-1, 1, width=32, allow_nan=False, allow_subnormal=False),
)


@settings(max_examples=400, deadline=None)
@given(SCORES, st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]))
def test_quantile_equals_numpys_for_any_scores(scores: np.ndarray, q: float) -> None:
    assert np.float32(quantile(scores, q)) == np.float32(np.quantile(scores, q))


def test_ranking_a_request_loads_no_masked_arrays() -> None:
    code = (
        "import sys\n"
        "from skillshelf.select.index import SkillIndex\n"
        "from skillshelf.select import rank_docs\n"
        "ix = SkillIndex.from_tools([('a', 'pdf', 'Merge PDF files'), ('b', 'csv', 'Clean CSV files')])\n"
        "rank_docs(ix, 'merge two pdf files')\n"
        "print('numpy.ma' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, encoding="utf-8")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"

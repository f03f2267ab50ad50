"""The numpy BERT's activation: erf (Abramowitz-Stegun 7.1.26) and GELU computed in place."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from skillshelf.select.minilm import _erf, _gelu

FLOATS = st.floats(min_value=-12, max_value=12, allow_nan=False, width=32)


@given(st.lists(FLOATS, min_size=1, max_size=64))
def test_erf_is_within_the_approximations_bound_and_keeps_its_input(values: list[float]) -> None:
    x = np.array(values, np.float32)
    before = x.copy()
    got = _erf(x)
    assert got.dtype == np.float32
    assert np.array_equal(x, before)
    for value, approx in zip(values, got.tolist(), strict=True):
        assert abs(approx - math.erf(value)) < 1.5e-7 + 4e-7  # the bound, plus float32 rounding in its steps


def test_gelu_is_x_times_the_normal_cdf_and_overwrites_its_input() -> None:
    x = np.linspace(-8, 8, 4001, dtype=np.float32)
    expected = [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.tolist()]
    got = _gelu(x)
    assert got is x and got.dtype == np.float32
    assert max(abs(a - b) for a, b in zip(got.tolist(), expected, strict=True)) < 2e-6
    assert _gelu(np.zeros(3, np.float32)).tolist() == [0.0, 0.0, 0.0]

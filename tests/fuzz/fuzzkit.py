"""Settings shared by the fuzz tests: how many cases each runs, and a seed printed on failure.

CI runs the counts below: 13,150 cases, about 45 s of one core (a fresh seed each run covers
new ground). A local run asks for more with ``SKILLSHELF_FUZZ_EXAMPLES=N`` (N cases for a
test of weight 1; each test has a weight for its cost; 8000 gives 105,200 cases)::

    SKILLSHELF_FUZZ_EXAMPLES=8000 .venv/bin/python -m pytest -q -n 2 tests/fuzz

Every run draws a fresh seed (``SKILLSHELF_FUZZ_SEED=N`` replays one); a failure prints it next
to hypothesis's ``@reproduce_failure`` blob.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, seed, settings

F = TypeVar("F", bound=Callable[..., Any])

#: Cases for a test of weight 1 in CI.
CI_EXAMPLES = 1000
EXAMPLES = int(os.environ.get("SKILLSHELF_FUZZ_EXAMPLES") or CI_EXAMPLES)
SEED = int(os.environ.get("SKILLSHELF_FUZZ_SEED") or random.SystemRandom().getrandbits(32))

settings.register_profile(
    "skillshelf-fuzz",
    deadline=None,
    print_blob=True,
    derandomize=False,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def fuzz(weight: float = 1.0) -> Callable[[F], F]:
    """Run the decorated ``@given`` test ``EXAMPLES * weight`` times from the run's seed."""

    def apply(test: F) -> F:
        count = max(1, int(EXAMPLES * weight))
        configured = settings(settings.get_profile("skillshelf-fuzz"), max_examples=count)(test)
        # a longer local run gets a longer time limit than the suite's 300 s a test
        limit = pytest.mark.timeout(300 * max(1.0, EXAMPLES / CI_EXAMPLES))
        return limit(seed(SEED)(configured))  # type: ignore[no-any-return]

    return apply


def examples_of(item: Any) -> int | None:
    """How many cases a collected fuzz test asks for (None: not a fuzz test)."""
    inner = getattr(getattr(item, "obj", None), "_hypothesis_internal_use_settings", None)
    return None if inner is None else int(inner.max_examples)

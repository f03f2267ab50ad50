"""A failing fuzz test prints the run's seed and how to replay it (see fuzzkit.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fuzzkit import SEED


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        report.sections.append(
            (
                "fuzz seed",
                f"rerun with SKILLSHELF_FUZZ_SEED={SEED} .venv/bin/python -m pytest '{item.nodeid}'",
            )
        )
